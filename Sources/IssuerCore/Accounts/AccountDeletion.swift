import Foundation
import Logging
import Postgres

/// Deletes an account as docs/reference.md, "Account deletion" says: in one transaction, the user's data, identities and
/// every session (with their refresh tokens) go, an audit record (internal id, when, why; nothing
/// personal) is written, and every Apple refresh token held is queued for revocation at Apple.
/// After the commit the revocations are tried at once, waiting at most `immediateTimeout`;
/// whatever is left the background worker retries (`AppleRevocationQueue`).
///
/// `DELETE /account`, `issuer users delete`, Apple's `account-delete` notification (which
/// sends nothing to Apple) and Google's `account-purged` event all go through here.
public struct AccountDeletion: Sendable {
    /// Why an account was deleted, as the audit record keeps it.
    public enum Reason: String, Sendable {
        /// docs/reference.md, "Account deletion": the user, through `DELETE /account`.
        case userRequest = "user request"
        /// docs/reference.md, "Admin CLI": an operator, with `issuer users delete`.
        case operatorRequest = "operator request"
        /// docs/reference.md, "Apple notifications": Apple's `account-delete` notification.
        case appleAccountDeleted = "apple account deleted"
        /// docs/reference.md, "Google's account-protection events": Google's `account-purged`, for a user left with no identity.
        case googleAccountPurged = "google account purged"
    }

    /// What a deletion did.
    public struct Outcome: Sendable {
        /// The deleted user's internal id (our `sub`).
        public var userID: UUID
        /// Apple tokens queued for revocation.
        public var queuedRevocations: Int
        /// Of those, how many Apple confirmed (or called already invalid) before the answer.
        public var settledRevocations: Int
    }

    private let pool: ConnectionPool
    private let clock: any WallClock
    private let revocations: AppleRevocationQueue
    private let events: any AccountEvents
    private let immediateTimeout: Duration

    /// - Parameter immediateTimeout: docs/reference.md, "Account deletion": the answer waits on Apple for about 2 seconds at most.
    public init(
        pool: ConnectionPool, clock: any WallClock, revocations: AppleRevocationQueue, events: any AccountEvents,
        immediateTimeout: Duration = .seconds(2)
    ) {
        self.pool = pool
        self.clock = clock
        self.revocations = revocations
        self.events = events
        self.immediateTimeout = immediateTimeout
    }

    /// Deletes the user. With `sessionID`, only if that session of the user is live at the moment
    /// of deletion (`DELETE /account`'s bearer token); nil when there was nothing to delete.
    public func delete(userID: UUID, sessionID: UUID? = nil, reason: Reason, logger: Logger) async throws -> Outcome? {
        let now = clock.now
        let claimed = try await pool.transaction { connection in
            try Self.delete(userID: userID, sessionID: sessionID, reason: reason, revokeAtApple: true, on: connection, now: now)
        }
        guard let claimed else { return nil }
        events.accountDeleted(reason: reason.rawValue)
        logger.notice("account deleted", metadata: [
            "user": "\(userID.uuidString.lowercased())", "reason": "\(reason.rawValue)", "apple_revocations": "\(claimed.count)",
        ])
        guard !claimed.isEmpty else { return Outcome(userID: userID, queuedRevocations: 0, settledRevocations: 0) }
        await revocations.attempt(claimed, timeout: immediateTimeout, logger: logger)
        // The deletion is committed: a failure to count must not turn it into an error.
        let settled = (try? await pool.query(
            "SELECT count(*) FROM apple_revocations WHERE user_id = $1 AND finished_at IS NOT NULL", [userID]).single?.decode(Int.self, at: 0)) ?? 0
        return Outcome(userID: userID, queuedRevocations: claimed.count, settledRevocations: settled)
    }

    /// The transaction's statements, for callers that run them inside a transaction of their own
    /// (a provider's event that records its `jti` in the same one). Nil when there was no such user
    /// (or, with `sessionID`, no such live session).
    static func delete(
        userID: UUID, sessionID: UUID?, reason: Reason, revokeAtApple: Bool, on connection: Connection, now: Date
    ) throws -> [AppleRevocationQueue.Claimed]? {
        // Locks the user first, so a concurrent sign-in's new session waits for the outcome.
        let found = try connection.query("""
            SELECT 1 FROM users u WHERE u.id = $1 AND ($2::uuid IS NULL OR EXISTS (
                SELECT 1 FROM sessions s WHERE s.id = $2 AND s.user_id = u.id AND s.revoked_at IS NULL AND s.expires_at > $3))
            FOR UPDATE
            """, [userID, sessionID, now]).single
        guard found != nil else { return nil }
        let claimed = revokeAtApple ? try AppleRevocationQueue.enqueue(userID: userID, on: connection, now: now) : []
        // Identities, sessions, refresh tokens, Apple tokens and pending codes go with it (ON DELETE CASCADE).
        try connection.query("DELETE FROM users WHERE id = $1", [userID])
        try connection.query(
            "INSERT INTO account_deletions (user_id, deleted_at, reason) VALUES ($1, $2, $3) ON CONFLICT (user_id) DO NOTHING",
            [userID, now, reason.rawValue])
        return claimed
    }
}
