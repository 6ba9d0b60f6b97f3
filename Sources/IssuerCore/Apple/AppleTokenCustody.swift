import Foundation
import Logging
import Postgres

/// Holds the user's Apple refresh token (docs/reference.md, "Apple token custody"), so that deleting the account can revoke it
/// at Apple as the App Store requires. Both sign-ins that receive Apple's one-time authorization
/// code call `custody(authorizationCode:clientID:userID:redirectURI:logger:)`: the native exchange
/// (docs/reference.md, "Native sign-in", `client_id` = the identity token's `aud`, the bundle ID) and the hosted callback
/// (docs/reference.md, "Hosted sign-in", the Services ID and the callback's `redirect_uri`).
///
/// The code is redeemed at once with a short timeout; whatever Apple answers, the sign-in goes on.
/// A code Apple could not redeem (unreachable, 5xx) is kept, sealed, in the database and retried by
/// any process's worker (`retryPending`) while it lives (5 minutes). Apple's refresh token is
/// stored only sealed (`AppleTokenVault`) and never logged.
public struct AppleTokenCustody: Sendable {
    /// Apple's authorization codes are valid for five minutes.
    public static let codeLifetime: Duration = .seconds(300)
    /// docs/reference.md, "Native sign-in": Apple's code is at most this long; longer is `invalid_request`.
    public static let maximumCodeLength = 1024
    /// Rows claimed per worker pass, and how long a claimed one is left alone.
    static let batchSize = 20
    static let lease: TimeInterval = 30

    /// The wait after `attempts` failed tries: 5 s, doubling, at most a minute.
    static func backoff(afterAttempts attempts: Int) -> TimeInterval {
        min(5 * pow(2, Double(max(0, min(attempts, 10) - 1))), 60)
    }

    private let pool: ConnectionPool
    private let vault: AppleTokenVault
    private let api: AppleTokenAPI?
    private let revocations: AppleRevocationQueue
    private let clock: any WallClock
    private let events: any AccountEvents
    /// How long the sign-in waits on Apple.
    private let immediateTimeout: Duration

    /// - Parameter api: nil without Apple developer credentials: codes are then not redeemed.
    public init(
        pool: ConnectionPool, vault: AppleTokenVault, api: AppleTokenAPI?, revocations: AppleRevocationQueue, clock: any WallClock,
        events: any AccountEvents, immediateTimeout: Duration = .seconds(2)
    ) {
        self.pool = pool
        self.vault = vault
        self.api = api
        self.revocations = revocations
        self.clock = clock
        self.events = events
        self.immediateTimeout = immediateTimeout
    }

    /// Whether Apple developer credentials are configured, so codes are redeemed at all.
    public var isConfigured: Bool { api != nil }

    /// Redeems Apple's code for `userID` and keeps the refresh token, or queues the code for the
    /// background worker. Never throws and never fails the sign-in (docs/reference.md, "Apple token custody").
    /// - Parameters:
    ///   - clientID: the Apple `client_id` the code was issued to: the identity token's `aud`.
    ///   - redirectURI: the `redirect_uri` Apple sent the code to, for web codes; nil for native ones.
    public func custody(authorizationCode: String, clientID: String, userID: UUID, redirectURI: String? = nil, logger: Logger) async {
        guard let api else {
            logger.debug("Apple authorization code not redeemed: no Apple developer credentials")
            return
        }
        let metadata: Logger.Metadata = ["user": "\(userID.uuidString.lowercased())", "client_id": "\(clientID)"]
        let received = clock.now
        let outcome = await api.redeem(code: authorizationCode, clientID: clientID, redirectURI: redirectURI, timeout: immediateTimeout)
        switch outcome {
        case .redeemed(let refreshToken):
            await keep(refreshToken, clientID: clientID, userID: userID, logger: logger, metadata: metadata)
        case .refused(let reason):
            events.appleRedemption(outcome: "refused")
            logger.warning("Apple refused the authorization code; no Apple token is held", metadata: metadata.merging(["error": "\(reason)"]) { $1 })
        case .failed(let reason):
            events.appleRedemption(outcome: "failed")
            do {
                try await pool.query("""
                    INSERT INTO apple_code_redemptions (id, user_id, client_id, redirect_uri, sealed_code, created_at, expires_at, attempts, next_attempt_at, last_error)
                    SELECT $1::uuid, $2::uuid, $3::text, $4::text, $5::bytea, $6::timestamptz, $7::timestamptz, 1, $8::timestamptz, $9::text WHERE EXISTS (SELECT 1 FROM users WHERE id = $2)
                    """, [
                        UUID(), userID, clientID, redirectURI, try vault.seal(authorizationCode, kind: .authorizationCode, userID: userID),
                        received, received.addingTimeInterval(Self.codeLifetime.timeInterval),
                        clock.now.addingTimeInterval(Self.backoff(afterAttempts: 1)), reason,
                    ])
                logger.notice("Apple code redemption failed; retrying in the background while the code lives", metadata: metadata.merging(["error": "\(reason)"]) { $1 })
            } catch {
                logger.error("Apple code redemption failed and cannot be queued", metadata: metadata.merging(["error": "\(reason); \(error)"]) { $1 })
            }
        }
    }

    /// One worker pass: drops expired codes, claims the due ones (`FOR UPDATE SKIP LOCKED`) and
    /// tries each once. Answers how many were tried.
    @discardableResult
    public func retryPending(timeout: Duration = .seconds(5), logger: Logger) async throws -> Int {
        guard let api else { return 0 }
        let now = clock.now
        let expired = try await pool.query("DELETE FROM apple_code_redemptions WHERE expires_at <= $1 RETURNING user_id", [now]).rows
        for row in expired {
            events.appleRedemption(outcome: "expired")
            logger.warning("Apple authorization code expired before Apple redeemed it; no Apple token is held", metadata: [
                "user": "\((try? row.decode(UUID.self, at: 0))?.uuidString.lowercased() ?? "-")",
            ])
        }
        let claimed = try await pool.query("""
            UPDATE apple_code_redemptions SET attempts = attempts + 1, next_attempt_at = $2
            WHERE id IN (
                SELECT id FROM apple_code_redemptions WHERE next_attempt_at <= $1 AND expires_at > $1
                ORDER BY next_attempt_at LIMIT $3 FOR UPDATE SKIP LOCKED)
            RETURNING id, user_id, client_id, redirect_uri, sealed_code, attempts, expires_at
            """, [now, now.addingTimeInterval(Self.lease), Self.batchSize]).rows
        for row in claimed {
            let id: UUID = try row.decode(at: 0), userID: UUID = try row.decode(at: 1), clientID: String = try row.decode(at: 2)
            let attempts: Int = try row.decode(at: 5), expiresAt: Date = try row.decode(at: 6)
            let metadata: Logger.Metadata = ["user": "\(userID.uuidString.lowercased())", "client_id": "\(clientID)", "attempt": "\(attempts)"]
            let outcome: AppleTokenAPI.Redemption
            do {
                let code = try vault.open(try row.decode(at: 4), kind: .authorizationCode, userID: userID)
                outcome = await api.redeem(code: code, clientID: clientID, redirectURI: try row.decodeIfPresent(at: 3), timeout: timeout)
            } catch {
                outcome = .refused("the stored code does not decrypt (was ISSUER_SECRET changed?)")
            }
            switch outcome {
            case .redeemed(let refreshToken):
                // One statement: the token is kept only if the pending row (and so the user) still exists.
                let kept = try await pool.query("""
                    WITH pending AS (DELETE FROM apple_code_redemptions WHERE id = $1 RETURNING user_id, client_id)
                    INSERT INTO apple_tokens (user_id, client_id, sealed, created_at)
                    SELECT user_id, client_id, $2::bytea, $3::timestamptz FROM pending
                    ON CONFLICT (user_id, client_id) DO UPDATE SET sealed = EXCLUDED.sealed, created_at = EXCLUDED.created_at
                    """, [id, try vault.seal(refreshToken, kind: .refreshToken, userID: userID), clock.now]).affectedRows
                if kept == 0 {
                    try await revocations.enqueue(refreshToken: refreshToken, clientID: clientID, userID: userID)
                }
                events.appleRedemption(outcome: "redeemed")
                logger.info("Apple authorization code redeemed in the background; Apple token held", metadata: metadata)
            case .refused(let reason):
                try await pool.query("DELETE FROM apple_code_redemptions WHERE id = $1", [id])
                events.appleRedemption(outcome: "refused")
                logger.warning("Apple refused the authorization code; no Apple token is held", metadata: metadata.merging(["error": "\(reason)"]) { $1 })
            case .failed(let reason):
                let next = min(clock.now.addingTimeInterval(Self.backoff(afterAttempts: attempts)), expiresAt)
                try await pool.query(
                    "UPDATE apple_code_redemptions SET next_attempt_at = $2, last_error = $3 WHERE id = $1", [id, next, reason])
                events.appleRedemption(outcome: "failed")
                logger.notice("Apple code redemption failed again; will retry while the code lives", metadata: metadata.merging(["error": "\(reason)"]) { $1 })
            }
        }
        return claimed.count
    }

    /// Stores the token for the user; if the account was deleted meanwhile, queues its revocation instead.
    private func keep(_ refreshToken: String, clientID: String, userID: UUID, logger: Logger, metadata: Logger.Metadata) async {
        do {
            let kept = try await pool.query("""
                INSERT INTO apple_tokens (user_id, client_id, sealed, created_at)
                SELECT $1::uuid, $2::text, $3::bytea, $4::timestamptz WHERE EXISTS (SELECT 1 FROM users WHERE id = $1)
                ON CONFLICT (user_id, client_id) DO UPDATE SET sealed = EXCLUDED.sealed, created_at = EXCLUDED.created_at
                """, [userID, clientID, try vault.seal(refreshToken, kind: .refreshToken, userID: userID), clock.now]).affectedRows
            if kept == 0 {
                try await revocations.enqueue(refreshToken: refreshToken, clientID: clientID, userID: userID)
                logger.notice("Apple token redeemed for an account deleted meanwhile; its revocation is queued", metadata: metadata)
            } else {
                logger.info("Apple authorization code redeemed; Apple token held", metadata: metadata)
            }
            events.appleRedemption(outcome: "redeemed")
        } catch let error as PostgresError where error.sqlState == .foreignKeyViolation {
            // Deleted between the check and the insert.
            try? await revocations.enqueue(refreshToken: refreshToken, clientID: clientID, userID: userID)
            events.appleRedemption(outcome: "redeemed")
        } catch {
            events.appleRedemption(outcome: "failed")
            logger.error("Apple token redeemed but not stored", metadata: metadata.merging(["error": "\(error)"]) { $1 })
        }
    }
}
