import Foundation

/// What every grant ends with: the token response (RFC 6749 §5.1) for a signed-in session. It has
/// ``TokenSigner`` sign the access token and, with `openid`, the ID token using the ring's active key at
/// this moment, and turns signing failures into OAuth errors.
public struct TokenResponder: Sendable {
    private let signer: TokenSigner
    private let ring: @Sendable () -> KeyRing

    /// - Parameter ring: the current key ring (the server's live view of `ISSUER_KEYS_DIR`).
    public init(signer: TokenSigner, ring: @escaping @Sendable () -> KeyRing) {
        self.signer = signer
        self.ring = ring
    }

    /// Signs the access token (and the ID token with `openid`) and attaches `refreshToken` as given;
    /// `temporarily_unavailable` while no signing key is active.
    /// - Parameter dpopThumbprint: the DPoP key the session is bound to: the access token carries
    ///   it as `cnf.jkt` and the answer's `token_type` is `DPoP` (RFC 9449 §5, docs/reference.md, "DPoP").
    public func respond(
        user: UserProfile, clientID: String, scopes: [String], sessionID: UUID, authTime: Date, sessionExpiresAt: Date,
        nonce: String?, refreshToken: RefreshToken?, includesIDToken: Bool = true, dpopThumbprint: String? = nil
    ) throws(OAuthError) -> TokenResponse {
        let contents = TokenContents(
            subject: user.subject, clientID: clientID, scopes: scopes, sessionID: sessionID.lowercaseText,
            authTime: authTime, sessionExpiresAt: sessionExpiresAt, nonce: nonce,
            profile: .init(email: user.email, emailVerified: user.emailVerified, name: user.name,
                           givenName: user.givenName, familyName: user.familyName),
            includesIDToken: includesIDToken, dpopThumbprint: dpopThumbprint)
        let tokens: SignedTokens
        do {
            tokens = try signer.sign(contents, ring: ring())
        } catch .noActiveKey {
            throw .temporarilyUnavailable("No signing key is loaded yet.", debug: "key ring has no active key")
        } catch {
            throw .serverError(debug: "minting failed: \(error)")
        }
        var response = TokenResponse(
            accessToken: tokens.accessToken, expiresIn: tokens.expiresIn, refreshToken: refreshToken?.value,
            idToken: tokens.idToken, scope: scopes.joined(separator: " "))
        if dpopThumbprint != nil { response.tokenType = "DPoP" }
        return response
    }
}
