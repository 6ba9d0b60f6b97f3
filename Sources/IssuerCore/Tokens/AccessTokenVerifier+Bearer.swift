import Foundation

extension AccessTokenVerifier {
    /// An access token presented as an RFC 6750 bearer credential (`/userinfo`, `DELETE /account`):
    /// its claims and the user and session it names; `invalid_token` (RFC 6750 §3.1) for anything
    /// wrong with it. Whether the session is still live is the caller's statement to decide.
    public struct Bearer: Sendable {
        /// The verified claims.
        public var claims: AccessTokenClaims
        /// `sub` as our user id.
        public var userID: UUID
        /// `sid` as our session id.
        public var sessionID: UUID
    }

    /// Verifies `token` against `ring` (docs/reference.md, "UserInfo").
    public func bearer(_ token: String, ring: KeyRing) throws(OAuthError) -> Bearer {
        let claims: AccessTokenClaims
        do {
            claims = try verify(token, ring: ring)
        } catch {
            throw OAuthError(.invalidToken, "The access token is invalid.", debug: "\(error)")
        }
        guard let sessionID = UUID(uuidString: claims.sessionID), let userID = UUID(uuidString: claims.subject) else {
            throw OAuthError(.invalidToken, "The access token is invalid.", debug: "sid or sub is not a UUID")
        }
        return Bearer(claims: claims, userID: userID, sessionID: sessionID)
    }
}
