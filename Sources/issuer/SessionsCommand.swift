import ArgumentParser
import Foundation
import IssuerCore
import IssuerStorage

/// `issuer sessions list|revoke` (docs/cli.md).
struct SessionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sessions",
        abstract: "List or revoke a user's sessions.",
        subcommands: [SessionsListCommand.self, SessionsRevokeCommand.self])
}

/// `issuer sessions list --user SUB`; exit 3 when there is no such user.
struct SessionsListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List a user's sessions (SUB is the tokens' sub).")

    @Option(help: "The user: the `sub` of its tokens.")
    var user: String

    @OptionGroup var output: OutputOptions

    @OptionGroup var database: DatabaseOptions

    func run() async throws {
        let userID = try AdminCommand.uuid(user, "user")
        try await AdminCommand.withDatabase(database) { pool, _ in
            let directory = SessionDirectoryStore(pool: pool)
            guard try await directory.user(id: userID) != nil else { throw CommandFailure.notFound("no user \(user)") }
            let sessions = try await directory.sessions(userID: userID)
            let now = Date()
            if output.isJSON {
                JSONValue.object(["sub": .string(userID.uuidString.lowercased()), "sessions": .array(sessions.map { $0.json(at: now) })]).print()
                return
            }
            guard !sessions.isEmpty else {
                AdminCommand.show("No sessions for \(user).")
                return
            }
            print(AdminCommand.table(
                ["SID", "CLIENT", "SCOPE", "SIGNED IN", "LAST USED", "EXPIRES", "ROTATIONS", "STATE", "IP", "USER AGENT"],
                sessions.map { session in
                    [session.id.uuidString.lowercased(), session.clientID, session.scope, AdminCommand.format(session.authTime),
                     AdminCommand.format(session.lastUsedAt), AdminCommand.format(session.expiresAt), String(session.generation),
                     session.stateDescription(at: now),
                     session.clientIP ?? "-", session.userAgent ?? "-"]
                }))
        }
    }
}

/// `issuer sessions revoke --user SUB` or `--session SID`.
struct SessionsRevokeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke", abstract: "Revoke every session of a user, or one session. Safe to re-run.")

    @Option(help: "Revoke every session of this user (the tokens' `sub`).")
    var user: String?

    @Option(help: "Revoke this one session (the tokens' `sid`).")
    var session: String?

    @OptionGroup var database: DatabaseOptions

    func validate() throws {
        guard (user == nil) != (session == nil) else {
            throw ValidationError("Give exactly one of --user or --session.")
        }
    }

    func run() async throws {
        let userID = try user.map { try AdminCommand.uuid($0, "user") }
        let sessionID = try session.map { try AdminCommand.uuid($0, "session") }
        try await AdminCommand.withDatabase(database) { pool, _ in
            let revocation = SessionRevocationStore(pool: pool)
            if let userID {
                let count = try await revocation.revokeAll(userID: userID, reason: "revoked by operator", at: Date())
                AdminCommand.show("Revoked \(count) session(s) of \(user!).")
            } else if let sessionID {
                let revoked = try await revocation.revoke(sessionID: sessionID, reason: "revoked by operator", at: Date())
                AdminCommand.show(revoked ? "Revoked session \(session!)." : "Session \(session!) was already revoked or does not exist.")
            }
        }
    }
}
