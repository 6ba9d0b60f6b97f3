import Foundation
import Logging

/// Sign in with Apple's native credential (docs/reference.md, "Native sign-in"): an ID token for
/// one of `ISSUER_APPLE_CLIENT_IDS` that the client's `apple_audiences` allows, under the nonce
/// rule of `ISSUER_APPLE_REQUIRE_NONCE` and `ISSUER_APPLE_ACCEPT_UNHASHED_NONCE`, and the app's
/// one-time `authorization_code` handed to token custody once the user is signed in
/// (docs/reference.md, "Apple token custody").
public struct AppleNativeCredential: NativeCredentialConnector {
    public var provider: IdentityProvider { verifier.provider }
    public var isConfigured: Bool { !(audiences ?? []).isEmpty }
    private let verifier: IdentityTokenVerifier
    /// `ISSUER_APPLE_CLIENT_IDS`; nil when not configured.
    private let audiences: Set<String>?
    private let noncePolicy: NoncePolicy
    private let custody: AppleTokenCustody?

    /// - Parameter custody: where the `authorization_code` goes; nil ignores it.
    public init(verifier: IdentityTokenVerifier, audiences: Set<String>?, noncePolicy: NoncePolicy, custody: AppleTokenCustody?) {
        self.verifier = verifier
        self.audiences = audiences
        self.noncePolicy = noncePolicy
        self.custody = custody
    }

    public func identity(
        _ credential: NativeCredential, nonce: String?, for client: OAuthClient?
    ) async throws(IdentityTokenError) -> ExternalIdentity {
        guard case .idToken(let idToken) = credential else { throw .incomplete("This provider takes an id_token.") }
        let configured = audiences ?? []
        // docs/reference.md, "Configuration" `apple_audiences`: a client limited to some bundle IDs refuses tokens for others.
        let accepted = client.map { configured.filter($0.accepts(appleAudience:)) } ?? configured
        return try await verifier.verify(idToken, audiences: accepted, nonce: nonce, noncePolicy: noncePolicy)
    }

    public func signedIn(userID: UUID, identity: ExternalIdentity, authorizationCode: String?, logger: Logger) async {
        guard let authorizationCode, let custody else { return }
        // docs/reference.md, "Apple token custody": redeemed with `client_id` = the Apple token's `aud`; never fails the sign-in.
        await custody.custody(authorizationCode: authorizationCode, clientID: identity.audience, userID: userID, logger: logger)
    }
}
