import HTTPTypes

/// One endpoint the server serves (docs/reference.md, "Requests and errors"), with every policy that depends on it. This enum is
/// the route table: registration, the `405`/`Allow` answers, rate limiting, body bounds, error
/// shaping and the discovery document all read it, so none of them can disagree with another,
/// and each applies to the *matched* route, however its path was spelled (docs/reference.md, "Faults and bad input").
enum Route: String, CaseIterable, Sendable {
    case appleExchange
    case providerExchange
    case providerCallback
    case authorization
    case appleCallback
    case logout
    case token
    case revocation
    case jwks
    case userinfo
    case openIDConfiguration
    case authorizationServerMetadata
    case healthz
    case readyz
    case metrics
    case account
    case accountSessions
    case accountIdentities
    case accountIdentity
    case accountSession
    case appleNotifications
    case googleRISC
    case providerDeauthorize
    case providerDataDeletion
    case pageAsset

    /// Where the route hangs: under the path of `ISSUER_URL`, at the server's root (docs/reference.md, "Operations"),
    /// or at RFC 8414 §3's `/.well-known/oauth-authorization-server` followed by that path.
    enum Placement: Sendable {
        case issuer
        case root
        case wellKnownAlias
    }

    /// How errors are rendered: RFC 6749 §5.2 JSON on the OAuth endpoints (docs/reference.md, "Faults and bad input", even the
    /// framework's own 404/405/413), the framework's default elsewhere.
    enum ErrorStyle: Sendable {
        case oauth
        case plain
    }

    var path: String {
        switch self {
        case .appleExchange: "/auth/apple/exchange"
        case .providerExchange: "/auth/{provider}/exchange"
        case .providerCallback: "/auth/{provider}/callback"
        case .authorization: "/oauth2/authorize"
        case .appleCallback: "/auth/apple/callback"
        case .logout: "/oauth2/logout"
        case .token: "/oauth2/token"
        case .revocation: "/oauth2/revoke"
        case .jwks: "/oauth2/jwks.json"
        case .userinfo: "/userinfo"
        case .openIDConfiguration: "/.well-known/openid-configuration"
        case .authorizationServerMetadata: "/.well-known/oauth-authorization-server"
        case .healthz: "/healthz"
        case .readyz: "/readyz"
        case .metrics: "/metrics"
        case .account: "/account"
        case .accountSessions: "/account/sessions"
        case .accountIdentities: "/account/identities"
        case .accountIdentity: "/account/identities/{provider}"
        case .accountSession: "/account/sessions/{sid}"
        case .appleNotifications: "/auth/apple/notifications"
        case .googleRISC: "/auth/google/risc"
        case .providerDeauthorize: "/auth/{provider}/deauthorize"
        case .providerDataDeletion: "/auth/{provider}/data-deletion"
        case .pageAsset: "/assets/{asset}"
        }
    }

    var placement: Placement {
        switch self {
        case .healthz, .readyz, .metrics: .root
        case .authorizationServerMetadata: .wellKnownAlias
        default: .issuer
        }
    }

    /// docs/reference.md, "Operations": the operations endpoints, which move to the management listener when
    /// `ISSUER_OPS_PORT` is set (and are then 404 on the main one).
    var isOperations: Bool { placement == .root }

    /// The methods served; any other method on the path is `405` with `Allow` (RFC 9110 §15.5.6).
    var methods: [HTTPRequest.Method] {
        switch self {
        case .appleExchange, .providerExchange, .token, .revocation, .appleCallback: [.post]
        case .authorization, .logout: [.get, .post]
        case .providerCallback: [.get]
        case .userinfo: [.get, .post]
        case .account: [.get, .delete]
        case .accountIdentities: [.post]
        case .accountIdentity: [.delete]
        case .accountSessions: [.get, .delete]
        case .accountSession: [.delete]
        case .appleNotifications, .googleRISC, .providerDeauthorize: [.post]
        // docs/reference.md, "Facebook's callbacks": Facebook posts the request; a person reads its status page.
        case .providerDataDeletion: [.post, .get]
        case .jwks, .openIDConfiguration, .authorizationServerMetadata, .healthz, .readyz, .metrics, .pageAsset: [.get]
        }
    }

    var errorStyle: ErrorStyle {
        switch self {
        case .appleExchange, .providerExchange, .token, .revocation, .jwks, .userinfo: .oauth
        // Google's receiver answers a refused token as RFC 8935 §2.4 says itself; the framework's
        // own errors there (405, 413) and its 503 are RFC 6749 JSON like the others'.
        case .account, .accountSessions, .accountSession, .accountIdentities, .accountIdentity, .appleNotifications, .googleRISC: .oauth
        // Facebook is answered JSON; the status page renders its own 404.
        case .providerDeauthorize, .providerDataDeletion: .oauth
        // The browser-facing endpoints answer HTML pages and redirects (docs/reference.md, "Hosted sign-in" and "Sign-out").
        case .authorization, .appleCallback, .providerCallback, .logout, .pageAsset: .plain
        case .openIDConfiguration, .authorizationServerMetadata, .healthz, .readyz, .metrics: .plain
        }
    }

    /// docs/reference.md, "Configuration" `ISSUER_RATE_LIMIT`: the endpoints that sign in, mint tokens or
    /// change an account (whose two proofs must not be guessed at speed) share one allowance per client IP.
    var isRateLimited: Bool {
        switch self {
        case .appleExchange, .providerExchange, .token, .revocation, .authorization, .appleCallback, .providerCallback, .logout,
             .account, .accountSessions, .accountSession, .accountIdentities, .accountIdentity:
            true
        default: false
        }
    }

    /// docs/reference.md, "DPoP": the endpoints that answer tokens, whose proofs carry the
    /// server's nonce with `ISSUER_DPOP_NONCE=on` and whose every answer names the next one.
    var issuesTokens: Bool {
        switch self {
        case .appleExchange, .providerExchange, .token: true
        default: false
        }
    }

    /// docs/reference.md, "UserInfo" and "DPoP": the endpoints that take our access tokens, verified
    /// once per request by `AccessTokenAuthenticationMiddleware` (a DPoP-bound one must come as
    /// `Authorization: DPoP` with a proof).
    var takesAccessTokens: Bool {
        switch self {
        case .userinfo, .account, .accountSessions, .accountSession, .accountIdentities, .accountIdentity: true
        default: false
        }
    }

    /// docs/reference.md, "Two proofs of one session": the requests that change an account, where
    /// `SessionProofMiddleware` takes the session's refresh token from the body once the bearer
    /// passed, with the other fields the endpoint reads from that same body (the identity to link);
    /// nil where the bearer alone is enough (`GET /account`, `GET /account/sessions`) or the route
    /// does not serve the method.
    func sessionProofFields(_ method: HTTPRequest.Method) -> [String]? {
        switch (self, method) {
        case (.account, .delete), (.accountSessions, .delete), (.accountSession, .delete), (.accountIdentity, .delete): []
        case (.accountIdentities, .post): ["provider", "id_token", "access_token", "nonce", "authorization_code"]
        default: nil
        }
    }

    /// docs/reference.md, "Browser clients": the endpoints a browser client calls from another
    /// origin, which answer CORS (preflight included) to the origins the clients list. The JWKS
    /// and discovery are public and answer `Access-Control-Allow-Origin: *` themselves.
    var isCrossOrigin: Bool {
        switch self {
        case .token, .revocation, .userinfo, .account, .accountSessions, .accountSession, .accountIdentities, .accountIdentity: true
        default: false
        }
    }

    /// docs/reference.md, "Faults and bad input": the largest request body the issuer reads, on
    /// any route (64 KiB); larger ones are 413 before they are parsed.
    static let maximumRequestBodySize = 64 * 1024

    /// docs/reference.md, "Faults and bad input": request bodies are bounded
    /// (`maximumRequestBodySize`); routes without a body accept none.
    var maximumBodySize: Int {
        methods.contains(.post) ? Self.maximumRequestBodySize : 0
    }

    /// The OpenID Connect Discovery 1.0 §3 / RFC 8414 §2 member that advertises this route.
    var discoveryMember: String? {
        switch self {
        case .appleExchange: "apple_exchange_endpoint"
        case .authorization: "authorization_endpoint"
        case .logout: "end_session_endpoint"
        case .token: "token_endpoint"
        case .revocation: "revocation_endpoint"
        case .jwks: "jwks_uri"
        case .userinfo: "userinfo_endpoint"
        default: nil
        }
    }

    /// The path the router registers, given the path of `ISSUER_URL` (e.g. `/oidc`, or empty).
    func registeredPath(prefix: String) -> String {
        switch placement {
        case .issuer: prefix + path
        case .root: path
        case .wellKnownAlias: path + prefix
        }
    }
}
