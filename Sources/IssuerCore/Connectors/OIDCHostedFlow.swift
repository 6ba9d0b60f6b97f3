import Foundation

/// A provider other than Apple that the hosted flow sends browsers to (docs/reference.md,
/// "Hosted sign-in"): the issuer is its confidential client, with Authorization Code and PKCE
/// S256, a fresh nonce and the sealed single-use state, redirect URI
/// `ISSUER_URL` + `/auth/{id}/callback`. Built from a provider's settings.
public struct HostedProvider: Sendable {
    /// The provider's `id`.
    public var name: String
    /// What its defaults came from, which also chooses its button (`brand`).
    public var kind: ProviderSettings.Kind
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
        endpoints: ProviderEndpoints, verifier: IdentityTokenVerifier, kind: ProviderSettings.Kind = .oidc
    ) {
        self.name = name
        self.kind = kind
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.scopes = scopes
        self.callbackURL = callbackURL
        self.endpoints = endpoints
        self.verifier = verifier
    }

    /// What the sign-in page calls it.
    public var displayName: String {
        name.prefix(1).uppercased() + name.dropFirst()
    }

    /// Its button on the sign-in page (docs/reference.md, "The pages people see"): Google's for
    /// `google`, a neutral one for any other OpenID provider. A kind added later gets its own
    /// here, where the compiler asks for it.
    public var brand: ProviderBrand {
        switch kind {
        case .google: .google
        case .oidc: .neutral
        }
    }
}
