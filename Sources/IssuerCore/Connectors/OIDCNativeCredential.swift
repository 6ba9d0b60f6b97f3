import Foundation

/// Any configured OpenID provider's native credential (docs/reference.md, "Google and other
/// OpenID providers"): an ID token for one of the provider's `native_audiences` (for Google,
/// the client IDs Android's Credential Manager asks for), under its nonce rule.
public struct OIDCNativeCredential: NativeCredentialConnector {
    public var provider: IdentityProvider { verifier.provider }
    public var isConfigured: Bool { !(audiences ?? []).isEmpty }
    private let verifier: IdentityTokenVerifier
    /// The provider's `native_audiences`; nil when none are configured.
    private let audiences: Set<String>?
    private let noncePolicy: NoncePolicy

    public init(verifier: IdentityTokenVerifier, audiences: Set<String>?, noncePolicy: NoncePolicy) {
        self.verifier = verifier
        self.audiences = audiences
        self.noncePolicy = noncePolicy
    }

    public func identity(
        _ credential: NativeCredential, nonce: String?, for client: OAuthClient?
    ) async throws(IdentityTokenError) -> ExternalIdentity {
        guard case .idToken(let idToken) = credential else { throw .incomplete("This provider takes an id_token.") }
        return try await verifier.verify(idToken, audiences: audiences ?? [], nonce: nonce, noncePolicy: noncePolicy)
    }
}
