import Foundation
import Postgres

/// What `issuer users show` tells of a user's Apple side (docs/reference.md, "Admin CLI" and "Apple notifications"): whether Apple's relay
/// forwards e-mail, and which Apple tokens are held (never the tokens themselves).
public struct AppleAccountState: Sendable {
    /// `enabled` or `disabled` as Apple last said; nil when Apple never said.
    public var emailForwarding: String?
    /// When that changed (Apple's `event_time`).
    public var emailForwardingChangedAt: Date?
    /// The Apple `client_id` of each refresh token held, and when it was stored.
    public var heldTokens: [(clientID: String, since: Date)]
    /// Authorization codes still waiting for Apple.
    public var pendingCodes: Int

    /// Reads it; nil when no user has that id.
    public static func load(userID: UUID, pool: ConnectionPool) async throws -> AppleAccountState? {
        try await pool.withConnection { connection in
            guard let user = try connection.query(
                "SELECT email_forwarding, email_forwarding_changed_at FROM users WHERE id = $1", [userID]).single
            else { return nil }
            let tokens = try connection.query(
                "SELECT client_id, created_at FROM apple_tokens WHERE user_id = $1 ORDER BY client_id", [userID]).rows
            let pending = try connection.query(
                "SELECT count(*) FROM apple_code_redemptions WHERE user_id = $1", [userID]).single?.decode(Int.self, at: 0) ?? 0
            return AppleAccountState(
                emailForwarding: try user.decodeIfPresent(at: 0), emailForwardingChangedAt: try user.decodeIfPresent(at: 1),
                heldTokens: try tokens.map { (clientID: try $0.decode(at: 0), since: try $0.decode(at: 1)) }, pendingCodes: pending)
        }
    }

    /// When the user was deleted and why, from the audit record; nil when it was not.
    public static func deletion(userID: UUID, pool: ConnectionPool) async throws -> (at: Date, reason: String)? {
        guard let row = try await pool.query("SELECT deleted_at, reason FROM account_deletions WHERE user_id = $1", [userID]).single else {
            return nil
        }
        return (try row.decode(at: 0), try row.decode(at: 1))
    }
}
