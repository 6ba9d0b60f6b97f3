import Foundation

/// OIDC Core §5.3 UserInfo (docs/reference.md, "UserInfo"): the claims the access token's scopes allow, read fresh
/// from the user, for a bearer already verified (RS256, `typ` `at+jwt`, `iss`, `aud`, `exp`) by
/// the request's authentication step, once its session is found live (one indexed lookup: not
/// revoked, not expired).
public struct UserInfoService: Sendable {
    private let users: any UserStoring
    private let clock: any WallClock

    /// - Parameter users: where the users and sessions are read.
    public init(users: any UserStoring, clock: any WallClock) {
        self.users = users
        self.clock = clock
    }

    /// The claims as a JSON-ready dictionary; `invalid_token` when the bearer's session is not live.
    public func claims(for bearer: AccessTokenVerifier.Bearer) async throws(OAuthError) -> [String: UserInfoValue] {
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
