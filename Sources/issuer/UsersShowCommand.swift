import ArgumentParser
import Foundation
import IssuerCore
import IssuerStorage

/// `issuer users show SUB`: the user, its identities (with what Google's account-protection
/// events said of them) and its sessions, Apple's e-mail forwarding state as Apple last reported
/// it, and which Apple tokens are held (never the tokens). Exit 3 when there is no such user.
struct UsersShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Show a user, its identities and sessions.")

    @Argument(help: "The user: the `sub` of its tokens.")
    var sub: String

    @OptionGroup var output: OutputOptions

    @OptionGroup var database: DatabaseOptions

    func run() async throws {
        let userID = try AdminCommand.uuid(sub, "user")
        try await AdminCommand.withDatabase(database) { pool, _ in
            let directory = SessionDirectoryStore(pool: pool)
            guard let details = try await directory.user(id: userID) else { throw CommandFailure.notFound("no user \(sub)") }
            let apple = try await AppleAccountStateStore(pool: pool).state(userID: userID)
            let sessions = try await directory.sessions(userID: userID)
            if output.isJSON {
                Self.json(details, apple: apple, sessions: sessions, now: Date()).print()
            } else {
                Self.showText(details, apple: apple, sessions: sessions)
            }
        }
    }

    /// The `--output json` document (docs/cli.md); `apple` is null for a user Apple never signed in.
    static func json(_ details: SessionDirectoryStore.UserDetails, apple: AppleAccountState?, sessions: [SessionDirectoryStore.SessionSummary], now: Date) -> JSONValue {
        let user = details.user
        return .object([
            "sub": .string(user.subject), "created_at": .date(details.createdAt), "name": .string(user.name),
            "email": .string(user.email), "email_verified": .bool(user.emailVerified), "private_email": .bool(details.isPrivateEmail),
            "apple": apple.map { apple in
                .object([
                    "email_forwarding": .string(apple.emailForwarding),
                    "email_forwarding_changed_at": .date(apple.emailForwardingChangedAt),
                    "tokens_held": .array(apple.heldTokens.map { .object(["client_id": .string($0.clientID), "since": .date($0.since)]) }),
                    "pending_codes": .number(apple.pendingCodes),
                ])
            } ?? .null,
            "identities": .array(details.identities.map {
                .object([
                    "provider": .string($0.provider), "subject": .string($0.subject), "last_sign_in_at": .date($0.lastSignInAt),
                    "disabled_at": .date($0.disabledAt), "disabled_reason": .string($0.disabledReason),
                    "sign_in_refused": .bool($0.refusesSignIn),
                    "credential_change_required_at": .date($0.credentialChangeRequiredAt),
                    "transfer": .string($0.transferStage), "transfer_target": .string($0.transferTarget), "rekeyed_at": .date($0.rekeyedAt),
                ])
            }),
            "sessions": .array(sessions.map { $0.json(at: now) }),
        ])
    }

    private static func showText(_ details: SessionDirectoryStore.UserDetails, apple: AppleAccountState?, sessions: [SessionDirectoryStore.SessionSummary]) {
        let user = details.user
        AdminCommand.show("User \(user.subject)")
        AdminCommand.show("  created        \(AdminCommand.format(details.createdAt))")
        AdminCommand.show("  name           \(user.name ?? "-")")
        AdminCommand.show("  email          \(user.email ?? "-") (verified: \(user.emailVerified.map(String.init) ?? "-"), private relay: \(details.isPrivateEmail.map(String.init) ?? "-"))")
        if let apple {
            // Apple's relay forwarding as Apple last reported it, and which Apple tokens are
            // held, never the tokens (docs/operations.md, account deletion).
            AdminCommand.show("  email forwarding \(apple.emailForwarding.map { "\($0) since \(AdminCommand.format(apple.emailForwardingChangedAt))" } ?? "- (Apple never said)")")
            let held = apple.heldTokens.map { "\($0.clientID) since \(AdminCommand.format($0.since))" }
            AdminCommand.show("  apple token    \(held.isEmpty ? "none held" : "held: " + held.joined(separator: ", "))"
                + (apple.pendingCodes > 0 ? " (\(apple.pendingCodes) code(s) waiting for Apple)" : ""))
        }
        AdminCommand.show("Identities")
        for identity in details.identities {
            AdminCommand.show("  \(identity.provider)  \(identity.subject)  last sign-in \(AdminCommand.format(identity.lastSignInAt))")
            // What the provider last said about the account (docs/reference.md, "Google's account-protection events").
            if let disabledAt = identity.disabledAt {
                AdminCommand.show("    disabled by the provider since \(AdminCommand.format(disabledAt)) (reason: \(identity.disabledReason ?? "none given"))"
                    + (identity.refusesSignIn ? "; sign-in refused until it is enabled again" : ""))
            }
            if identity.transferStage != "-" {
                AdminCommand.show("    Apple team transfer: \(identity.transferStage)" + (identity.transferTarget.map { " (to team \($0))" } ?? ""))
            }
            if let required = identity.credentialChangeRequiredAt {
                AdminCommand.show("    credential change required by the provider at \(AdminCommand.format(required))")
            }
        }
        AdminCommand.show("Sessions (\(sessions.count))")
        let now = Date()
        for session in sessions {
            AdminCommand.show("  \(session.id.uuidString.lowercased())  \(session.clientID)  \(session.stateDescription(at: now))  last used \(AdminCommand.format(session.lastUsedAt))")
        }
    }
}
