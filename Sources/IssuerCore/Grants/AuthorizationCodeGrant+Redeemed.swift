import Foundation

extension AuthorizationCodeGrant {
    /// What a redeemed code yields: the session and its user, for minting.
    public struct Redeemed: Sendable {
        /// The session the hosted sign-in opened.
        public var sessionID: UUID
        /// The scopes granted at the authorization endpoint.
        public var scopes: [String]
        /// The client's `nonce` from the authorization request.
        public var nonce: String?
        /// When the user signed in.
        public var authTime: Date
        /// The session's hard end.
        public var sessionExpiresAt: Date
        /// The user.
        public var user: UserProfile
        /// The DPoP key the redemption's proof bound the session to (docs/reference.md, "DPoP").
        public var dpopThumbprint: String?

        public init(
            sessionID: UUID, scopes: [String], nonce: String? = nil, authTime: Date, sessionExpiresAt: Date, user: UserProfile,
            dpopThumbprint: String? = nil
        ) {
            self.sessionID = sessionID
            self.scopes = scopes
            self.nonce = nonce
            self.authTime = authTime
            self.sessionExpiresAt = sessionExpiresAt
            self.user = user
            self.dpopThumbprint = dpopThumbprint
        }
    }
}
