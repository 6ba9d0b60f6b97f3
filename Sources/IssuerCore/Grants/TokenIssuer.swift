import Foundation

/// Turns a signed-in session into a token response (RFC 6749 §5.1): mints the access token and,
/// with `openid`, the ID token, using the ring's active key at this moment.
public struct TokenIssuer: Sendable {
    private let minter: TokenMinter
    private let ring: @Sendable () -> KeyRing

    /// - Parameter ring: the current key ring (the server's live view of `ISSUER_KEYS_DIR`).
    public init(minter: TokenMinter, ring: @escaping @Sendable () -> KeyRing) {
        self.minter = minter
        self.ring = ring
    }

    /// Mints the access token (and the ID token with `openid`) and attaches `refreshToken` as given;
    /// `temporarily_unavailable` while no signing key is active.
    public func issue(
        user: UserProfile, clientID: String, scopes: [String], sessionID: UUID, authTime: Date, sessionExpiresAt: Date,
        nonce: String?, refreshToken: RefreshToken?
    ) throws(OAuthError) -> TokenResponse {
        let issuance = TokenIssuance(
            subject: user.subject, clientID: clientID, scopes: scopes, sessionID: sessionID.uuidString.lowercased(),
            authTime: authTime, sessionExpiresAt: sessionExpiresAt, nonce: nonce,
            profile: .init(email: user.email, emailVerified: user.emailVerified, name: user.name,
                           givenName: user.givenName, familyName: user.familyName))
        let tokens: IssuedTokens
        do {
            tokens = try minter.mint(issuance, ring: ring())
        } catch .noActiveKey {
            throw .temporarilyUnavailable("No signing key is loaded yet.", debug: "key ring has no active key")
        } catch {
            throw .serverError(debug: "minting failed: \(error)")
        }
        return TokenResponse(
            accessToken: tokens.accessToken, expiresIn: tokens.expiresIn, refreshToken: refreshToken?.value,
            idToken: tokens.idToken, scope: scopes.joined(separator: " "))
    }
}
