import Foundation

/// What the authorization code grant asks of storage (the fosite habit: a narrow seam per grant),
/// so that its decisions are tested without a database; `AuthorizationCodeStore` answers it over
/// PostgreSQL.
public protocol AuthorizationCodeStoring: Sendable {
    /// Consumes the code and stores the session's first refresh token; nil when it may not be.
    /// `dpopThumbprint` binds the session to a DPoP key (docs/reference.md, "DPoP").
    func redeem(
        code: AuthorizationCode, clientID: String, redirectURI: String, codeChallenge: String, refreshToken: RefreshToken,
        refreshTokenExpiresAt: Date, now: Date, dpopThumbprint: String?
    ) async throws -> AuthorizationCodeGrant.Redeemed?
    /// RFC 6749 §4.1.2: a refused code is spent and its session revoked; whether one was.
    func spendAndRevoke(code: AuthorizationCode, now: Date) async throws -> Bool
}

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
