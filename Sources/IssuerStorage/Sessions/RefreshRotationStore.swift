import Foundation
import IssuerCore
import Postgres

/// The database side of refresh-token rotation (docs/reference.md, "Refresh tokens and sessions"), one round trip per refresh.
///
/// One statement locks the presented token's row, decides its `RefreshVerdict`, and only when
/// that is `rotated` marks it spent and inserts its successor; it returns the verdict, the token,
/// its session and its user. Concurrent uses of one token serialize on that row lock, so exactly
/// one rotates it and the others see it spent: no second branch can ever exist.
///
/// A refresh writes nothing to `sessions`: when a session was last used is when its newest token
/// was issued (`SessionDirectoryStore` derives it), so the hot path updates one row and inserts one.
public struct RefreshRotationStore: Sendable {
    private let pool: ConnectionPool

    /// Every statement runs on `pool`.
    public init(pool: ConnectionPool) {
        self.pool = pool
    }

    /// `$1` presented hash, `$2` now, `$3` successor hash, `$4` client, `$5` successor expiry,
    /// `$6` requested scopes (space-separated) or NULL, `$7` the thumbprint of the request's
    /// verified DPoP proof or NULL (docs/reference.md, "DPoP"), and for that proof's `jti` memory
    /// `$8` its `jti` (NULL: none to record), `$9` its hash, `$10` until when it is remembered and
    /// `$11` since when an identical resend is the retry. The proof is recorded here, in the same
    /// statement (`DPoPReplayStore`'s), so that a bound refresh is one round trip too; a replayed
    /// proof is the first verdict and touches nothing else. The CASE is the one statement of the
    /// rules, in `RefreshVerdict`'s order; it reads the row as locked (a concurrent rotation that
    /// committed first is seen as `spent`). The answer is one row whatever the token: `proof_fresh`,
    /// and the token's columns, NULL for an unknown one. Public for `issuer-bench rotation-script`,
    /// which drives this statement alone for the benchmark's floor.
    public static let rotateStatement = """
        WITH proof AS (
            \(DPoPReplayStore.recording(jkt: "$7", jti: "$8", proofHash: "$9", seenAt: "$2", expiresAt: "$10", resendSince: "$11"))
        ), presented AS (
            SELECT r.token_hash, r.session_id, r.generation, r.spent_at, r.successor_hash,
                   s.user_id, s.scope, s.auth_time, s.expires_at AS session_expires_at, s.dpop_jkt,
                   CASE
                       WHEN $8::text IS NOT NULL AND NOT EXISTS (SELECT 1 FROM proof) THEN 'proof_replayed'
                       WHEN s.revoked_at IS NOT NULL THEN 'revoked'
                       WHEN s.expires_at <= $2 THEN 'session_expired'
                       WHEN s.dpop_jkt IS NOT NULL AND s.dpop_jkt IS DISTINCT FROM $7::text THEN 'key_mismatch'
                       WHEN s.client_id <> $4 THEN 'another_client'
                       WHEN $6::text IS NOT NULL
                            AND NOT string_to_array($6::text, ' ') <@ string_to_array(s.scope, ' ') THEN 'scope_not_granted'
                       WHEN r.spent_at IS NOT NULL THEN 'spent'
                       WHEN r.expires_at <= $2 THEN 'expired'
                       ELSE 'rotated'
                   END AS verdict
            FROM refresh_tokens r JOIN sessions s ON s.id = r.session_id
            WHERE r.token_hash = $1
            FOR UPDATE OF r
        ), rotated AS (
            UPDATE refresh_tokens r SET spent_at = $2, successor_hash = $3
            FROM presented p
            WHERE r.token_hash = p.token_hash AND p.verdict = 'rotated'
            RETURNING r.token_hash
        ), successor AS (
            INSERT INTO refresh_tokens (token_hash, session_id, parent_hash, generation, created_at, expires_at)
            SELECT $3, p.session_id, p.token_hash, p.generation + 1, $2, LEAST($5::timestamptz, p.session_expires_at)
            FROM presented p, rotated
        )
        SELECT ($8::text IS NULL OR EXISTS (SELECT 1 FROM proof)) AS proof_fresh, t.*
        FROM (SELECT 1) AS one LEFT JOIN (
            SELECT p.verdict, p.session_id, p.generation, p.spent_at, p.successor_hash, p.scope, p.auth_time,
                   p.session_expires_at, p.dpop_jkt, p.user_id, u.email, u.email_verified, u.given_name, u.family_name
            FROM presented p JOIN users u ON u.id = p.user_id
        ) AS t ON true
        """

    /// Rotates `tokenHash` into `successorHash` if it may be, and answers the verdict and what is
    /// stored; nil when no token has that hash.
    /// - Parameter requestedScopes: a narrowing the client asked for; a token is never rotated
    ///   for a request that widens its scope (a client's mistake changes nothing).
    /// - Parameter dpopThumbprint: the key of the request's verified DPoP proof; a session bound to
    ///   another key (or to one, without a proof) is `keyMismatch` and nothing is touched.
    /// - Parameter dpopProof: that proof, whose `jti` this statement records (an identical resend
    ///   first seen since `resendSince` is the retry); nil when it was recorded before, or none.
    /// - Throws: `DPoPProofReplayed` when the proof's `jti` was used before: nothing else happened.
    public func rotate(
        tokenHash: [UInt8], successorHash: [UInt8], clientID: String, requestedScopes: [String]?, now: Date,
        successorExpiresAt: Date, dpopThumbprint: String? = nil, dpopProof: DPoPProof? = nil, resendSince: Date? = nil
    ) async throws -> RefreshRecord? {
        let rows = try await pool.query(
            Self.rotateStatement,
            [tokenHash, now, successorHash, clientID, successorExpiresAt, requestedScopes?.joined(separator: " "),
             dpopProof?.thumbprint ?? dpopThumbprint, dpopProof?.jwtID, dpopProof?.proofHash,
             dpopProof.map { DPoPReplayStore.expiry(of: $0, now: now) }, resendSince]).rows
        guard let row = rows.first else { return nil }
        guard try row.decode(Bool.self, column: "proof_fresh") else { throw DPoPProofReplayed() }
        guard let verdictText: String = try row.decodeIfPresent(column: "verdict") else { return nil }
        guard let verdict = RefreshVerdict(rawValue: verdictText) else {
            throw PostgresError.decoding("unknown refresh verdict '\(verdictText)'")
        }
        return RefreshRecord(
            verdict: verdict, sessionID: try row.decode(column: "session_id"), generation: try row.decode(column: "generation"),
            spentAt: try row.decodeIfPresent(column: "spent_at"), successorHash: try row.decodeIfPresent(column: "successor_hash"),
            scopes: try row.decode(String.self, column: "scope").split(separator: " ").map(String.init),
            authTime: try row.decode(column: "auth_time"), sessionExpiresAt: try row.decode(column: "session_expires_at"),
            user: try UserProfile(row: row), dpopThumbprint: try row.decodeIfPresent(column: "dpop_jkt"))
    }
}
