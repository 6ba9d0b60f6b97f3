import ArgumentParser
import Foundation
import IssuerCore

/// `issuer users show SUB` (SPEC §6).
struct UsersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users", abstract: "Show users.", subcommands: [UsersShowCommand.self])
}

/// The user, its identities and its sessions.
struct UsersShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Show a user, its identities and sessions.")

    @Argument(help: "The user: the `sub` of its tokens.")
    var sub: String

    @OptionGroup var database: DatabaseOptions

    func run() async throws {
        let userID = try AdminCommand.uuid(sub, "user")
        try await AdminCommand.withDatabase(database) { pool, _ in
            let directory = SessionDirectory(pool: pool)
            guard let details = try await directory.user(id: userID) else {
                AdminCommand.fail("no user \(sub)")
            }
            let user = details.user
            AdminCommand.show("User \(user.subject)")
            AdminCommand.show("  created        \(AdminCommand.format(details.createdAt))")
            AdminCommand.show("  name           \(user.name ?? "-")")
            AdminCommand.show("  email          \(user.email ?? "-") (verified: \(user.emailVerified.map(String.init) ?? "-"), private relay: \(details.isPrivateEmail.map(String.init) ?? "-"))")
            AdminCommand.show("Identities")
            for identity in details.identities {
                AdminCommand.show("  \(identity.provider)  \(identity.subject)  last sign-in \(AdminCommand.format(identity.lastSignInAt))")
            }
            let sessions = try await directory.sessions(userID: userID)
            AdminCommand.show("Sessions (\(sessions.count))")
            for session in sessions {
                let state = session.revokedAt.map { _ in "revoked (\(session.revokedReason ?? "-"))" } ?? (session.expiresAt < Date() ? "expired" : "active")
                AdminCommand.show("  \(session.id.uuidString.lowercased())  \(session.clientID)  \(state)  last used \(AdminCommand.format(session.lastUsedAt))")
            }
        }
    }
}
