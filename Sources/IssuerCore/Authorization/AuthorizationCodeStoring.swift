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
