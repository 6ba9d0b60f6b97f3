import Foundation
import IssuerCore
import Postgres

/// The SQL of what `issuer users show` tells of a user's Apple side (`AppleAccountState`).
public struct AppleAccountStateStore: Sendable {
    private let pool: ConnectionPool

    /// Every statement runs on `pool`.
    public init(pool: ConnectionPool) {
        self.pool = pool
    }

    /// Reads it; nil when no user has that id, or when Apple has no part in the user (no Apple
    /// identity, no Apple token held or waiting): a Google-only user has no Apple side
    /// (docs/cli.md, `users show --output json`: `apple` is null).
    public func state(userID: UUID) async throws -> AppleAccountState? {
        let apple = IdentityProvider.apple.name
        return try await pool.withConnection { connection in
            guard let user = try connection.query("""
                SELECT email_forwarding, email_forwarding_changed_at,
                       EXISTS (SELECT 1 FROM identities WHERE user_id = $1 AND provider = $2) AS signed_in_with_apple
                FROM users WHERE id = $1
                """, [userID, apple]).single
            else { return nil }
            let tokens = try connection.query(
                "SELECT client_id, created_at FROM apple_tokens WHERE user_id = $1 ORDER BY client_id", [userID]).rows
            let pending = try connection.query(
                "SELECT count(*) AS pending FROM apple_code_redemptions WHERE user_id = $1", [userID])
                .single?.decode(Int.self, column: "pending") ?? 0
            guard try user.decode(Bool.self, column: "signed_in_with_apple") || !tokens.isEmpty || pending > 0 else { return nil }
            return AppleAccountState(
                emailForwarding: try user.decodeIfPresent(column: "email_forwarding"),
                emailForwardingChangedAt: try user.decodeIfPresent(column: "email_forwarding_changed_at"),
                heldTokens: try tokens.map { (clientID: try $0.decode(column: "client_id"), since: try $0.decode(column: "created_at")) },
                pendingCodes: pending)
        }
    }
}
