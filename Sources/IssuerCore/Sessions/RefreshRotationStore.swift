import Foundation
import Postgres

/// The database side of refresh-token rotation (SPEC §4.3), one round trip per refresh.
///
/// One statement locks the presented token's row, marks it spent and inserts its successor only
/// if it was still unspent, unexpired, of the right client and of a live session, then returns
/// the token, its session and its user. Concurrent uses of one token serialize on that row lock,
/// so exactly one rotates it and the others see it spent: no second branch can ever exist.
public struct RefreshRotationStore: Sendable {
    private let pool: ConnectionPool

    /// Every statement runs on `pool`.
    public init(pool: ConnectionPool) {
        self.pool = pool
    }

    static let rotateStatement = """
        WITH presented AS (
            SELECT r.token_hash, r.session_id, r.generation, r.expires_at, r.spent_at, r.successor_hash,
                   s.user_id, s.client_id, s.scope, s.nonce, s.auth_time, s.expires_at AS session_expires_at, s.revoked_at
            FROM refresh_tokens r JOIN sessions s ON s.id = r.session_id
            WHERE r.token_hash = $1
            FOR UPDATE OF r
        ), rotated AS (
            UPDATE refresh_tokens r SET spent_at = $2, successor_hash = $3
            FROM presented p
            WHERE r.token_hash = p.token_hash AND r.spent_at IS NULL AND p.expires_at > $2
              AND p.revoked_at IS NULL AND p.session_expires_at > $2 AND p.client_id = $4
              AND ($6::text IS NULL OR string_to_array($6::text, ' ') <@ string_to_array(p.scope, ' '))
            RETURNING r.token_hash
        ), successor AS (
            INSERT INTO refresh_tokens (token_hash, session_id, parent_hash, generation, created_at, expires_at)
            SELECT $3, p.session_id, p.token_hash, p.generation + 1, $2, LEAST($5::timestamptz, p.session_expires_at)
            FROM presented p, rotated
            RETURNING session_id
        ), touched AS (
            UPDATE sessions SET last_used_at = $2
            FROM successor WHERE sessions.id = successor.session_id
            RETURNING sessions.id
        )
        SELECT p.session_id, p.generation, p.expires_at, p.spent_at, p.successor_hash, p.client_id, p.scope, p.nonce,
               p.auth_time, p.session_expires_at, p.revoked_at, (SELECT count(*) FROM touched) > 0,
               u.id, u.email, u.email_verified, u.given_name, u.family_name
        FROM presented p JOIN users u ON u.id = p.user_id
        """

    /// Rotates `tokenHash` into `successorHash` if it may be, and answers what is stored.
    /// - Parameter requestedScopes: a narrowing the client asked for; a token is never rotated
    ///   for a request that widens its scope (a client's mistake changes nothing).
    public func rotate(
        tokenHash: [UInt8], successorHash: [UInt8], clientID: String, requestedScopes: [String]?, now: Date,
        successorExpiresAt: Date
    ) async throws -> RefreshRecord? {
        let rows = try await pool.query(
            Self.rotateStatement,
            [tokenHash, now, successorHash, clientID, successorExpiresAt, requestedScopes?.joined(separator: " ")]).rows
        guard let row = rows.first else { return nil }
        return RefreshRecord(
            sessionID: try row.decode(at: 0), generation: try row.decode(at: 1), tokenExpiresAt: try row.decode(at: 2),
            spentAt: try row.decodeIfPresent(at: 3), successorHash: try row.decodeIfPresent(at: 4),
            clientID: try row.decode(at: 5), scopes: try row.decode(String.self, at: 6).split(separator: " ").map(String.init),
            nonce: try row.decodeIfPresent(at: 7), authTime: try row.decode(at: 8), sessionExpiresAt: try row.decode(at: 9),
            revokedAt: try row.decodeIfPresent(at: 10), rotatedNow: try row.decode(at: 11),
            user: UserProfile(
                id: try row.decode(at: 12), email: try row.decodeIfPresent(at: 13), emailVerified: try row.decodeIfPresent(at: 14),
                givenName: try row.decodeIfPresent(at: 15), familyName: try row.decodeIfPresent(at: 16)))
    }
}
