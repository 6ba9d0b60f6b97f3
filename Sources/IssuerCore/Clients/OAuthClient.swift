/// A registered public client (RFC 6749 §2.1): no secret, bound to PKCE and to its exact
/// redirect URIs (RFC 8252 §8.4, RFC 9700 §2.1). docs/reference.md, "Configuration" `ISSUER_CLIENTS_FILE`.
public struct OAuthClient: Sendable, Equatable, Codable {
    /// RFC 6749 §2.2 `client_id`: unique within the registry.
    public var clientID: String
    /// RFC 6749 §3.1.2: where authorization codes may be delivered, compared by exact string match.
    public var redirectURIs: [String]
    /// RP-Initiated Logout 1.0 §3: where a sign-out may end, exact match. Never a redirect URI,
    /// so that a code can never reach an app's sign-out handler.
    public var postLogoutRedirectURIs: [String]
    /// The scopes this client may ask for (RFC 6749 §3.3).
    public var scopes: [String]
    /// The Apple audiences (bundle IDs, Services ID) whose identity tokens this client may use;
    /// nil: any configured one (docs/reference.md, "Configuration").
    public var appleAudiences: [String]?
    /// The browser origins (RFC 6454) allowed to call the token, revocation, userinfo and account
    /// endpoints cross-origin, each exactly as a browser sends it (`WebOrigin`); empty: none
    /// (docs/reference.md, "Browser clients").
    public var allowedOrigins: [String]
    /// Whether a refresh answers an ID token when the scope has `openid` (default true). OIDC
    /// Core §12.2 lets a refresh answer omit it; an app that keeps its sign-in's ID token can say
    /// false and each refresh then costs one signature instead of two (docs/reference.md,
    /// "Configuration").
    public var idTokenOnRefresh: Bool
    /// The app's name as the operator writes it (RFC 7591 §2 `client_name`), shown on its
    /// sign-in page (docs/reference.md, "The pages people see"); nil: `ISSUER_DISPLAY_NAME`.
    public var clientName: String?
    /// `logo`: an image file of `ISSUER_PAGES_DIR` shown above the app's name on its sign-in
    /// page (docs/reference.md, "The pages people see"); nil: the theme's logo, if any.
    public var logo: String?
    /// `dpop`: whether every token request of this client must carry a DPoP proof (RFC 9449;
    /// docs/reference.md, "DPoP"). `"optional"` (the default) or `"required"`.
    public var dpop: DPoPPolicy

    /// The clients file's `dpop` values.
    public enum DPoPPolicy: String, Sendable, Equatable, Codable {
        /// A proof binds the session when sent; requests without one are served as bearer.
        case optional
        /// A token request without a proof is `400 invalid_dpop_proof`.
        case required
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case clientID = "client_id"
        case redirectURIs = "redirect_uris"
        case postLogoutRedirectURIs = "post_logout_redirect_uris"
        case scopes
        case appleAudiences = "apple_audiences"
        case allowedOrigins = "allowed_origins"
        case idTokenOnRefresh = "id_token_on_refresh"
        case clientName = "client_name"
        case logo
        case dpop

        /// What a clients file may say; any other member is refused (docs/reference.md, "Configuration").
        static let allNames = Set(allCases.map(\.rawValue))
    }

    /// Unchecked; `ClientRegistry` validates clients as a set.
    public init(
        clientID: String, redirectURIs: [String], postLogoutRedirectURIs: [String] = [], scopes: [String],
        appleAudiences: [String]? = nil, allowedOrigins: [String] = [], idTokenOnRefresh: Bool = true,
        clientName: String? = nil, logo: String? = nil, dpop: DPoPPolicy = .optional
    ) {
        self.clientID = clientID
        self.redirectURIs = redirectURIs
        self.postLogoutRedirectURIs = postLogoutRedirectURIs
        self.scopes = scopes
        self.appleAudiences = appleAudiences
        self.allowedOrigins = allowedOrigins
        self.idTokenOnRefresh = idTokenOnRefresh
        self.clientName = clientName
        self.logo = logo
        self.dpop = dpop
    }

    /// docs/reference.md, "Configuration": `post_logout_redirect_uris`, `apple_audiences`, `allowed_origins`,
    /// `id_token_on_refresh`, `client_name`, `logo` and `dpop` are optional; a member of the wrong type is an error, not
    /// ignored (and `ClientRegistry` refuses an unknown one before decoding).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        clientID = try container.decode(String.self, forKey: .clientID)
        redirectURIs = try container.decode([String].self, forKey: .redirectURIs)
        postLogoutRedirectURIs = try container.decodeIfPresent([String].self, forKey: .postLogoutRedirectURIs) ?? []
        scopes = try container.decode([String].self, forKey: .scopes)
        appleAudiences = try container.decodeIfPresent([String].self, forKey: .appleAudiences)
        allowedOrigins = try container.decodeIfPresent([String].self, forKey: .allowedOrigins) ?? []
        idTokenOnRefresh = try container.decodeIfPresent(Bool.self, forKey: .idTokenOnRefresh) ?? true
        clientName = try container.decodeIfPresent(String.self, forKey: .clientName)
        logo = try container.decodeIfPresent(String.self, forKey: .logo)
        dpop = try container.decodeIfPresent(DPoPPolicy.self, forKey: .dpop) ?? .optional
    }

    /// docs/reference.md, "DPoP": refuses a token request without a proof from a client whose
    /// registry entry says `"dpop": "required"`, before anything is looked up or written.
    public func checkProof(_ thumbprint: String?) throws(OAuthError) {
        guard dpop == .required, thumbprint == nil else { return }
        throw .invalidDPoPProof("This client must send a DPoP proof with every token request.")
    }

    /// Whether this client may use an Apple identity token issued for `audience` (docs/reference.md, "Configuration").
    public func accepts(appleAudience audience: String) -> Bool {
        appleAudiences.map { $0.contains(audience) } ?? true
    }
}
