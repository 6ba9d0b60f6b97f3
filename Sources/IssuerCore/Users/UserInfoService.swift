import Foundation
import Postgres

/// OIDC Core §5.3 UserInfo (docs/reference.md, "UserInfo"): the claims the access token's scopes allow, read fresh
/// from the user, after checking the token (RS256, `typ` `at+jwt`, `iss`, `aud`, `exp`) and its
/// session (one indexed lookup: not revoked, not expired).
public struct UserInfoService: Sendable {
    private let users: UserStore
    private let verifier: AccessTokenVerifier
    private let ring: @Sendable () -> KeyRing
    private let clock: any WallClock

    /// - Parameters:
    ///   - pool: where the users and sessions are read (through `UserStore`).
    ///   - ring: the current key ring, against which access tokens are verified.
    public init(pool: ConnectionPool, verifier: AccessTokenVerifier, ring: @escaping @Sendable () -> KeyRing, clock: any WallClock) {
        self.users = UserStore(pool: pool)
        self.verifier = verifier
        self.ring = ring
        self.clock = clock
    }

    /// The claims as a JSON-ready dictionary; `invalid_token` for any token or session problem.
    public func claims(accessToken: String) async throws(OAuthError) -> [String: UserInfoValue] {
        let bearer = try verifier.bearer(accessToken, ring: ring())
        let user: UserProfile?
        do {
            user = try await users.user(id: bearer.userID, liveSession: bearer.sessionID, at: clock.now)
        } catch {
            throw .storage(error)
        }
        guard let user else {
            throw OAuthError(.invalidToken, "The access token is invalid.", debug: "session revoked, expired or deleted")
        }
        let scopes = Set(bearer.claims.scope.split(separator: " ").map(String.init))
        var result: [String: UserInfoValue] = ["sub": .string(bearer.claims.subject)]
        if scopes.contains("email") {
            if let email = user.email { result["email"] = .string(email) }
            if let verified = user.emailVerified { result["email_verified"] = .bool(verified) }
        }
        if scopes.contains("profile") {
            if let name = user.name { result["name"] = .string(name) }
            if let given = user.givenName { result["given_name"] = .string(given) }
            if let family = user.familyName { result["family_name"] = .string(family) }
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
