import Foundation

/// One entry of `ISSUER_PROVIDERS_FILE` (docs/reference.md, "Google and other OpenID providers"):
/// an identity provider beside Apple, as data. `kind` chooses the connector and its defaults:
/// Google's published issuer and endpoints for `google`; the provider's discovery document for
/// `oidc` (OpenID Connect Discovery 1.0 §4); Facebook Login's published values for `facebook`
/// (docs/reference.md, "Facebook"). Everything a sign-in checks comes from these fields.
public struct ProviderSettings: Sendable, Equatable {
    /// What the defaults come from.
    public enum Kind: String, Sendable {
        case google
        case oidc
        /// Facebook Login: Limited Login's OpenID token or a Graph API access token.
        case facebook
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
    /// Facebook's Graph API root and version (`facebook` only): access tokens are checked there,
    /// and account deletion removes the app's permissions there.
    public var graphURL: URL?
    public var graphVersion: String?

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

    /// A provider of kind `facebook`: the app is the client, its id every token's audience
    /// (docs/reference.md, "Facebook"); nil endpoints take Facebook's published values.
    public static func facebook(
        id: String, appID: String, appSecret: Secret<String>, jwksURI: URL? = nil, graphURL: URL? = nil, graphVersion: String? = nil,
        authorizationEndpoint: URL? = nil, tokenEndpoint: URL? = nil
    ) -> ProviderSettings {
        let version = graphVersion ?? Facebook.graphVersion
        let graph = graphURL ?? Facebook.graphURL
        var settings = ProviderSettings(
            id: id, kind: .facebook, issuer: Facebook.issuer, clientID: appID, clientSecret: appSecret, nativeAudiences: [appID],
            scopes: ["public_profile", "email"], jwksURI: jwksURI ?? Facebook.jwksURI,
            authorizationEndpoint: authorizationEndpoint ?? Facebook.dialogURL(version: version),
            tokenEndpoint: tokenEndpoint ?? Facebook.tokenEndpoint(graph: graph, version: version))
        settings.graphURL = graph
        settings.graphVersion = version
        return settings
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

    /// Facebook Login's published values (developers.facebook.com, "Limited Login" and "Graph API").
    public enum Facebook {
        /// The `iss` of Limited Login's tokens.
        public static let issuer = "https://www.facebook.com"
        /// Older Limited Login tokens carry it without `www`.
        public static let alternateIssuer = "https://facebook.com"
        public static let jwksURI = URL(string: "https://limited.facebook.com/.well-known/oauth/openid/jwks/")!
        public static let graphURL = URL(string: "https://graph.facebook.com")!
        public static let graphVersion = "v23.0"

        /// The Login dialog of Graph API `version`.
        public static func dialogURL(version: String) -> URL {
            URL(string: "https://www.facebook.com/\(version)/dialog/oauth")!
        }

        /// Where a code is redeemed for an access token, at `graph` for `version`.
        public static func tokenEndpoint(graph: URL, version: String) -> URL {
            graph.appendingPathComponent(version).appendingPathComponent("oauth/access_token")
        }
    }

    /// Every `iss` its tokens may carry.
    public var issuers: Set<String> {
        switch kind {
        case .google where issuer == Google.issuer: [issuer, Google.alternateIssuer]
        case .facebook where issuer == Facebook.issuer: [issuer, Facebook.alternateIssuer]
        default: [issuer]
        }
    }

    /// Whether the hosted flow can send browsers to it: it needs a client of its own.
    public var servesHostedFlow: Bool { clientID != nil && clientSecret != nil }

    /// Where its discovery document is (OpenID Connect Discovery 1.0 §4).
    public var discoveryURL: URL? {
        URL(string: (issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer) + "/.well-known/openid-configuration")
    }
}
