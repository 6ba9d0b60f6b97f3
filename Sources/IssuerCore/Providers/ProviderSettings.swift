import Foundation

/// One entry of `ISSUER_PROVIDERS_FILE` (docs/reference.md, "Google and other OpenID providers"):
/// an OpenID provider beside Apple, as data. `kind` only chooses defaults: Google's published
/// issuer and endpoints for `google`; the provider's discovery document for `oidc`
/// (OpenID Connect Discovery 1.0 §4). Everything a sign-in checks comes from these fields.
public struct ProviderSettings: Sendable, Equatable {
    /// What the defaults come from.
    public enum Kind: String, Sendable {
        case google
        case oidc
    }

    /// Names the provider in paths (`/auth/{id}/exchange`), in identities and in `issuer users`.
    public var id: String
    public var kind: Kind
    /// The provider's `iss`, exactly (OIDC Core §3.1.3.7 step 2).
    public var issuer: String
    /// The issuer's client id for the hosted flow, and a token's accepted `aud` there.
    public var clientID: String?
    /// The hosted flow's client secret; nil: the provider serves native sign-in only.
    public var clientSecret: Secret<String>?
    /// The `aud` values a native sign-in accepts (for Google: the server's web client id the app
    /// gives Credential Manager).
    public var nativeAudiences: [String]
    /// The `azp` values accepted when a token carries one (for Google: the Android client ids).
    public var authorizedParties: [String]
    /// What the hosted flow asks for.
    public var scopes: [String]
    /// When set, a token's `hd` must equal it (a Google Workspace domain).
    public var hostedDomain: String?
    /// Whether a sign-in may link to an existing user by a verified e-mail.
    public var linkByVerifiedEmail: Bool
    /// Endpoints; nil: from Google's published values (`google`) or the discovery document (`oidc`).
    public var jwksURI: URL?
    public var authorizationEndpoint: URL?
    public var tokenEndpoint: URL?
    /// Where Google's RISC keys are (Google's RISC configuration document names them).
    public var riscJWKSURI: URL?

    public init(
        id: String, kind: Kind, issuer: String, clientID: String? = nil, clientSecret: Secret<String>? = nil,
        nativeAudiences: [String] = [], authorizedParties: [String] = [], scopes: [String] = ["openid", "email", "profile"],
        hostedDomain: String? = nil, linkByVerifiedEmail: Bool = false, jwksURI: URL? = nil, authorizationEndpoint: URL? = nil,
        tokenEndpoint: URL? = nil, riscJWKSURI: URL? = nil
    ) {
        self.id = id
        self.kind = kind
        self.issuer = issuer
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.nativeAudiences = nativeAudiences
        self.authorizedParties = authorizedParties
        self.scopes = scopes
        self.hostedDomain = hostedDomain
        self.linkByVerifiedEmail = linkByVerifiedEmail
        self.jwksURI = jwksURI
        self.authorizationEndpoint = authorizationEndpoint
        self.tokenEndpoint = tokenEndpoint
        self.riscJWKSURI = riscJWKSURI
    }

    /// Google's published values (accounts.google.com/.well-known/openid-configuration and
    /// risc-configuration).
    public enum Google {
        public static let issuer = "https://accounts.google.com"
        /// OIDC Core §15.6.2: Google also writes its `iss` without the scheme.
        public static let alternateIssuer = "accounts.google.com"
        public static let jwksURI = URL(string: "https://www.googleapis.com/oauth2/v3/certs")!
        public static let authorizationEndpoint = URL(string: "https://accounts.google.com/o/oauth2/v2/auth")!
        public static let tokenEndpoint = URL(string: "https://oauth2.googleapis.com/token")!
        public static let riscJWKSURI = URL(string: "https://www.googleapis.com/oauth2/v3/certs")!
        /// The `iss` of Google's security event tokens: unlike its ID tokens', with a trailing slash.
        public static let riscIssuer = "https://accounts.google.com/"
    }

    /// Every `iss` its tokens may carry.
    public var issuers: Set<String> {
        kind == .google && issuer == Google.issuer ? [issuer, Google.alternateIssuer] : [issuer]
    }

    /// Whether the hosted flow can send browsers to it: it needs a client of its own.
    public var servesHostedFlow: Bool { clientID != nil && clientSecret != nil }

    /// Where its discovery document is (OpenID Connect Discovery 1.0 §4).
    public var discoveryURL: URL? {
        URL(string: (issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer) + "/.well-known/openid-configuration")
    }
}
