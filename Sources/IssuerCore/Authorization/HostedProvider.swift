import Foundation

/// A provider other than Apple that the hosted flow sends browsers to (docs/reference.md,
/// "Hosted sign-in"): the issuer is its confidential client, with Authorization Code and PKCE
/// S256, a fresh nonce and the sealed single-use state, redirect URI
/// `ISSUER_URL` + `/auth/{id}/callback`. Built from a provider's settings.
public struct HostedProvider: Sendable {
    /// The provider's `id`.
    public var name: String
    /// The issuer's client at the provider.
    public var clientID: String
    public var clientSecret: Secret<String>
    public var scopes: [String]
    /// `ISSUER_URL` + `/auth/{id}/callback`.
    public var callbackURL: String
    /// Where its authorization and token endpoints are.
    public var endpoints: ProviderEndpoints
    /// Its ID tokens' verifier (audience: `clientID`).
    public var verifier: IdentityTokenVerifier

    public init(
        name: String, clientID: String, clientSecret: Secret<String>, scopes: [String], callbackURL: String,
        endpoints: ProviderEndpoints, verifier: IdentityTokenVerifier
    ) {
        self.name = name
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.scopes = scopes
        self.callbackURL = callbackURL
        self.endpoints = endpoints
        self.verifier = verifier
    }

    /// What the chooser page calls it.
    public var displayName: String {
        name.prefix(1).uppercased() + name.dropFirst()
    }
}
