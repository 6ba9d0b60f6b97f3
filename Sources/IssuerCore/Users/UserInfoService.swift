import Foundation
import Postgres

/// OIDC Core §5.3 UserInfo (SPEC §3.6): the claims the access token's scopes allow, read fresh
/// from the user, after checking the token (RS256, `typ` `at+jwt`, `iss`, `aud`, `exp`) and its
/// session (one indexed lookup: not revoked, not expired).
public struct UserInfoService: Sendable {
    private let pool: ConnectionPool
    private let verifier: AccessTokenVerifier
    private let ring: @Sendable () -> KeyRing
    private let clock: any WallClock

    /// - Parameter ring: the current key ring, against which access tokens are verified.
    public init(pool: ConnectionPool, verifier: AccessTokenVerifier, ring: @escaping @Sendable () -> KeyRing, clock: any WallClock) {
        self.pool = pool
        self.verifier = verifier
        self.ring = ring
        self.clock = clock
    }

    static let statement = """
        SELECT u.email, u.email_verified, u.given_name, u.family_name
        FROM sessions s JOIN users u ON u.id = s.user_id
        WHERE s.id = $1 AND s.user_id = $2 AND s.revoked_at IS NULL AND s.expires_at > $3
        """

    /// The claims as a JSON-ready dictionary; `invalid_token` for any token or session problem.
    public func claims(accessToken: String) async throws(OAuthError) -> [String: UserInfoValue] {
        let bearer = try verifier.bearer(accessToken, ring: ring())
        let (claims, userID, sessionID) = (bearer.claims, bearer.userID, bearer.sessionID)
        let row: PostgresRow?
        do {
            row = try await pool.query(Self.statement, [sessionID, userID, clock.now]).single
        } catch {
            throw .storage(error)
        }
        guard let row else {
            throw OAuthError(.invalidToken, "The access token is invalid.", debug: "session revoked, expired or deleted")
        }
        let scopes = Set(claims.scope.split(separator: " ").map(String.init))
        var result: [String: UserInfoValue] = ["sub": .string(claims.subject)]
        do {
            if scopes.contains("email") {
                if let email: String = try row.decodeIfPresent(at: 0) { result["email"] = .string(email) }
                if let verified: Bool = try row.decodeIfPresent(at: 1) { result["email_verified"] = .bool(verified) }
            }
            if scopes.contains("profile") {
                let user = UserProfile(id: userID, givenName: try row.decodeIfPresent(at: 2), familyName: try row.decodeIfPresent(at: 3))
                if let name = user.name { result["name"] = .string(name) }
                if let given = user.givenName { result["given_name"] = .string(given) }
                if let family = user.familyName { result["family_name"] = .string(family) }
            }
        } catch {
            throw .serverError(debug: "userinfo decoding: \(error)")
        }
        return result
    }
}

/// A UserInfo claim value: the claims we answer are strings or booleans.
public enum UserInfoValue: Sendable, Equatable, Encodable {
    case string(String)
    case bool(Bool)

    /// A bare JSON string or boolean, not a tagged object.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        }
    }
}
