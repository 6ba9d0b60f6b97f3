import Foundation
import JOSE

/// An OpenID provider whose ID tokens we accept as proof of sign-in: configuration, not code
/// (docs/reference.md, "Google and other OpenID providers"). Apple is one value of this type;
/// each entry of `ISSUER_PROVIDERS_FILE` is another. Its keys are the business of the
/// `RemoteJWKSCache` the verifier is given.
public struct IdentityProvider: Sendable, Equatable {
    /// Our name for it, stored with each identity (`apple`, `google`).
    public var name: String
    /// Its `iss` as it publishes it (OIDC Core §3.1.3.7 step 2).
    public var issuer: String
    /// Every `iss` its tokens may carry: `issuer`, and for Google also `accounts.google.com`
    /// (OIDC Core §15.6.2).
    public var issuers: Set<String>
    /// The `azp` values accepted, besides the accepted audiences, when a token carries one
    /// (OIDC Core §2; for Google, the Android app's client ID).
    public var authorizedParties: Set<String>
    /// When set, a token's `hd` must equal it.
    public var hostedDomain: String?
    /// The signature algorithms accepted; never `none` or an HMAC (RFC 8725 §3.1).
    public var algorithms: Set<JWSAlgorithm>

    public init(
        name: String, issuer: String, alternateIssuers: Set<String> = [], authorizedParties: Set<String> = [],
        hostedDomain: String? = nil, algorithms: Set<JWSAlgorithm> = [.rs256]
    ) {
        self.name = name
        self.issuer = issuer
        self.issuers = alternateIssuers.union([issuer])
        self.authorizedParties = authorizedParties
        self.hostedDomain = hostedDomain
        self.algorithms = algorithms
    }

    /// Sign in with Apple: RS256 only, as Apple signs.
    public static let apple = IdentityProvider(name: "apple", issuer: "https://appleid.apple.com")

    /// A provider of `ISSUER_PROVIDERS_FILE`. Limited Login signs with RS256 only
    /// (docs/reference.md, "Facebook"); the others with any algorithm of our allow-list.
    public init(_ settings: ProviderSettings) {
        self.init(
            name: settings.id, issuer: settings.issuer, alternateIssuers: settings.issuers,
            authorizedParties: Set(settings.authorizedParties), hostedDomain: settings.hostedDomain,
            algorithms: settings.kind == .facebook ? [.rs256] : Set(JWSAlgorithm.allCases))
    }
}
