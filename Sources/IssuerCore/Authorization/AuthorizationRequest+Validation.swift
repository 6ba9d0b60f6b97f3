extension AuthorizationRequest {
    /// The verdict on a request to the authorization endpoint (RFC 6749 §4.1.2.1, docs/reference.md, "Hosted sign-in").
    public enum Verdict: Sendable, Equatable {
        /// Valid: send the browser to Apple.
        case valid(AuthorizationRequest)
        /// The client or its redirect URI cannot be trusted: show a page, never redirect (RFC 6749
        /// §4.1.2.1, RFC 9700 §4.11: a redirect would make the issuer an open redirector).
        case untrusted(PageMessage)
        /// A later error: redirect to the (trusted) redirect URI with `error` and `state`.
        case redirect(redirectURI: String, error: OAuthError.Code, description: String, state: String?)
    }

    /// docs/reference.md, "Hosted sign-in": `state` and `nonce` are echoed, so they are bounded.
    public static let maximumStateLength = 1024

    /// Checks the parameters in RFC 6749 §4.1.2.1's order: the client and the exact redirect URI
    /// first (their errors are pages), then everything else (errors are redirects).
    ///
    /// - Parameter parameters: the request's parameters; a name given twice is in `repeated`.
    public static func validate(
        _ parameters: [String: String], repeated: Set<String>, clients: ClientRegistry
    ) -> Verdict {
        for name in ["client_id", "redirect_uri"] where repeated.contains(name) {
            return .untrusted(PageMessage(.parameterRepeated, ["parameter": name]))
        }
        guard let clientID = parameters["client_id"] else { return .untrusted(PageMessage(.parameterMissing, ["parameter": "client_id"])) }
        guard let client = clients.client(id: clientID) else { return .untrusted(PageMessage(.clientUnknown)) }
        guard let redirectURI = parameters["redirect_uri"] else {
            return .untrusted(PageMessage(.parameterMissing, ["parameter": "redirect_uri"]))
        }
        guard client.redirectURIs.contains(redirectURI) else {
            return .untrusted(PageMessage(.redirectURIUnregistered))
        }
        let state = parameters["state"]
        func refuse(_ code: OAuthError.Code, _ description: String) -> Verdict {
            // A state too long to echo is dropped rather than echoed.
            .redirect(redirectURI: redirectURI, error: code, description: description,
                      state: state.flatMap { $0.utf8.count <= maximumStateLength ? $0 : nil })
        }
        if let name = repeated.sorted().first { return refuse(.invalidRequest, "The \(name) parameter is repeated.") }
        guard let responseType = parameters["response_type"] else {
            return refuse(.invalidRequest, "The response_type parameter is required.")
        }
        guard responseType == "code" else {
            return refuse(.unsupportedResponseType, "Only response_type=code is supported.")
        }
        if let state, state.utf8.count > maximumStateLength {
            return refuse(.invalidRequest, "The state parameter is longer than \(maximumStateLength) bytes.")
        }
        guard let challenge = parameters["code_challenge"] else {
            return refuse(.invalidRequest, "PKCE is required: send code_challenge with code_challenge_method=S256.")
        }
        guard parameters["code_challenge_method"] == PKCE.method else {
            return refuse(.invalidRequest, "code_challenge_method must be S256; plain is not accepted.")
        }
        guard PKCE.isValidChallenge(challenge) else {
            return refuse(.invalidRequest, "The code_challenge is not a base64url SHA-256 digest.")
        }
        let nonce = parameters["nonce"]
        if let nonce, nonce.utf8.count > IdentityExchange.Request.maximumNonceLength || nonce.containsControlCharacters {
            return refuse(.invalidRequest, "The nonce must be at most 256 bytes without control characters.")
        }
        // RFC 9449 §10: a JWK thumbprint is the base64url of a SHA-256 digest, as a PKCE challenge is.
        let dpopJKT = parameters["dpop_jkt"]
        if let dpopJKT, !PKCE.isValidChallenge(dpopJKT) {
            return refuse(.invalidRequest, "dpop_jkt must be the base64url SHA-256 thumbprint of the DPoP key.")
        }
        let scopes: [String]
        do {
            scopes = try ScopeRequest.resolve(parameters["scope"], for: client)
        } catch {
            return refuse(.invalidScope, error.description)
        }
        return .valid(AuthorizationRequest(
            clientID: clientID, redirectURI: redirectURI, scopes: scopes, state: state, codeChallenge: challenge, nonce: nonce,
            dpopJKT: dpopJKT))
    }
}
