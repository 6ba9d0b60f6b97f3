import Foundation

extension AccessTokenVerifier {
    /// An access token presented as an RFC 6750 bearer credential (`/userinfo`, the account
    /// endpoints), verified once per request by the server's authentication step: its claims and
    /// the user and session it names. Whether the session is still live is the caller's statement
    /// to decide.
    public struct Bearer: Sendable {
        /// The verified claims.
        public var claims: AccessTokenClaims
        /// `sub` as our user id.
        public var userID: UUID
        /// `sid` as our session id.
        public var sessionID: UUID

        /// The bearer `verified` names, or `invalid_token` (RFC 6750 §3.1) for anything wrong with
        /// the token: its verification failed, or its `sid` or `sub` is not one of ours
        /// (docs/reference.md, "UserInfo").
        public init(verified: Result<AccessTokenClaims, AccessTokenVerificationError>) throws(OAuthError) {
            let claims: AccessTokenClaims
            switch verified {
            case .success(let verifiedClaims): claims = verifiedClaims
            case .failure(let error): throw OAuthError(.invalidToken, "The access token is invalid.", debug: "\(error)")
            }
            guard let sessionID = UUID(uuidString: claims.sessionID), let userID = UUID(uuidString: claims.subject) else {
                throw OAuthError(.invalidToken, "The access token is invalid.", debug: "sid or sub is not a UUID")
            }
            self.claims = claims
            self.userID = userID
            self.sessionID = sessionID
        }
    }

}
