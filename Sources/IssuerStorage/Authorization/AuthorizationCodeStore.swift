import Foundation
import IssuerCore
import Postgres

/// Redeems authorization codes (docs/reference.md, "Hosted sign-in") with the database deciding: one statement consumes
/// the code only if it is unspent, unexpired and presented with its own client, redirect URI and
/// PKCE verifier, and in the same statement stores the session's first refresh token. Two
/// concurrent redemptions serialize on the code's row; exactly one gets a row back.
public struct AuthorizationCodeStore: Sendable {
    public typealias Redeemed = AuthorizationCodeGrant.Redeemed

    private let pool: ConnectionPool

    /// Codes live in `pool`'s database.
    public init(pool: ConnectionPool) {
        self.pool = pool
    }

    static let redeemStatement = """
        WITH code AS (
            UPDATE authorization_codes SET redeemed_at = $5
            WHERE code_hash = $1 AND redeemed_at IS NULL AND expires_at > $5
              AND client_id = $2 AND redirect_uri = $3 AND code_challenge = $4
              AND (dpop_jkt IS NULL OR dpop_jkt = $8::text)
            RETURNING session_id
        ), session AS (
            UPDATE sessions s SET last_used_at = $5, dpop_jkt = $8::text
            FROM code WHERE s.id = code.session_id AND s.revoked_at IS NULL AND s.expires_at > $5
            RETURNING s.id, s.user_id, s.scope, s.nonce, s.auth_time, s.expires_at, s.dpop_jkt
        ), token AS (
            INSERT INTO refresh_tokens (token_hash, session_id, generation, created_at, expires_at)
            SELECT $6, id, 0, $5, LEAST($7, expires_at) FROM session
            RETURNING session_id
        )
        SELECT session.id AS session_id, session.scope, session.nonce, session.auth_time, session.expires_at, session.dpop_jkt,
               u.id AS user_id, u.email, u.email_verified, u.given_name, u.family_name
        FROM session JOIN token ON token.session_id = session.id JOIN users u ON u.id = session.user_id
        """

    /// RFC 6749 §4.1.2 and RFC 9700 §4.2.4: a code presented again, or with the wrong binding,
    /// is spent for good and whatever it opened is revoked (the first redemption may have been
    /// an attacker's, or this one is).
    static let misuseStatement = """
        WITH code AS (
            UPDATE authorization_codes SET redeemed_at = COALESCE(redeemed_at, $2)
            WHERE code_hash = $1
            RETURNING session_id
        )
        UPDATE sessions SET revoked_at = $2, revoked_reason = 'authorization code replayed or misused'
        WHERE id IN (SELECT session_id FROM code) AND revoked_at IS NULL
        RETURNING id
        """

    /// Consumes the code and stores `refreshToken` for its session; nil when the code is unknown,
    /// spent, expired, another client's or redirect URI's, the verifier does not match, or the
    /// code is bound to a DPoP key (`dpop_jkt`) and the redemption carries no proof from it.
    /// - Parameter dpopThumbprint: the key of the redemption's verified DPoP proof: the session is
    ///   bound to it from then on (RFC 9449 §5, docs/reference.md, "DPoP"); nil leaves it unbound.
    public func redeem(
        code: AuthorizationCode, clientID: String, redirectURI: String, codeChallenge: String, refreshToken: RefreshToken,
        refreshTokenExpiresAt: Date, now: Date, dpopThumbprint: String? = nil
    ) async throws -> Redeemed? {
        let parameters: [any PostgresEncodable] = [
            code.hash, clientID, redirectURI, codeChallenge, now, refreshToken.hash, refreshTokenExpiresAt, dpopThumbprint,
        ]
        guard let row = try await pool.query(Self.redeemStatement, parameters).single else { return nil }
        return Redeemed(
            sessionID: try row.decode(column: "session_id"),
            scopes: try row.decode(String.self, column: "scope").split(separator: " ").map(String.init),
            nonce: try row.decodeIfPresent(column: "nonce"),
            authTime: try row.decode(column: "auth_time"),
            sessionExpiresAt: try row.decode(column: "expires_at"),
            user: try UserProfile(row: row),
            dpopThumbprint: try row.decodeIfPresent(column: "dpop_jkt"))
    }

    /// Spends a code that failed redemption and revokes its session; answers whether a session
    /// was revoked.
    @discardableResult
    public func spendAndRevoke(code: AuthorizationCode, now: Date) async throws -> Bool {
        try await pool.query(Self.misuseStatement, [code.hash, now]).single != nil
    }
}
extension AuthorizationCodeStore: AuthorizationCodeStoring {}
