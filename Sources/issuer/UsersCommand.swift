import ArgumentParser
import Foundation
import IssuerCore

/// `issuer users show SUB` and `issuer users delete SUB` (SPEC §6).
struct UsersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users", abstract: "Show or delete users.", subcommands: [UsersShowCommand.self, UsersDeleteCommand.self])
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
            if let apple = try await AppleAccountState.load(userID: userID, pool: pool) {
                // SPEC §3.10: Apple's relay forwarding as Apple last reported it; SPEC §3.8: which
                // Apple tokens are held, never the tokens.
                AdminCommand.show("  email forwarding \(apple.emailForwarding.map { "\($0) since \(AdminCommand.format(apple.emailForwardingChangedAt))" } ?? "- (Apple never said)")")
                let held = apple.heldTokens.map { "\($0.clientID) since \(AdminCommand.format($0.since))" }
                AdminCommand.show("  apple token    \(held.isEmpty ? "none held" : "held: " + held.joined(separator: ", "))"
                    + (apple.pendingCodes > 0 ? " (\(apple.pendingCodes) code(s) waiting for Apple)" : ""))
            }
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
