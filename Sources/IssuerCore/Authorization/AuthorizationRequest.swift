/// A client's authorization request (RFC 6749 §4.1.1 with RFC 7636 §4.3), once checked against
/// the client registry: everything the issuer must remember while the browser is at Apple.
public struct AuthorizationRequest: Codable, Sendable, Equatable {
    /// `client_id`: a registered client.
    public var clientID: String
    /// `redirect_uri`: exactly one of the client's registered `redirect_uris`.
    public var redirectURI: String
    /// The granted scopes (RFC 6749 §3.3).
    public var scopes: [String]
    /// `state`: opaque to us, returned to the client as sent.
    public var state: String?
    /// `code_challenge` (RFC 7636 §4.2), method S256.
    public var codeChallenge: String
    /// `nonce` (OIDC Core §3.1.2.1): echoed in the ID token.
    public var nonce: String?
    /// `dpop_jkt` (RFC 9449 §10): the thumbprint of the DPoP key the code is bound to; its
    /// redemption needs a proof from that key (docs/reference.md, "DPoP").
    public var dpopJKT: String?

    enum CodingKeys: String, CodingKey {
        case clientID = "c"
        case redirectURI = "r"
        case scopes = "s"
        case state = "st"
        case codeChallenge = "cc"
        case nonce = "n"
        case dpopJKT = "dj"
    }

    /// A request whose members were validated by `AuthorizationRequestValidator`.
    public init(
        clientID: String, redirectURI: String, scopes: [String], state: String?, codeChallenge: String, nonce: String?,
        dpopJKT: String? = nil
    ) {
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.scopes = scopes
        self.state = state
        self.codeChallenge = codeChallenge
        self.nonce = nonce
        self.dpopJKT = dpopJKT
    }
}
