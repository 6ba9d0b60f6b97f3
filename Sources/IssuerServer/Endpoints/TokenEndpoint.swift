import Hummingbird
import IssuerCore
import Logging

/// docs/reference.md, "Token endpoint", `POST /oauth2/token` (RFC 6749 §3.2): reads the body once, then dispatches on
/// `grant_type` to one grant; an unknown grant is `unsupported_grant_type`. A `DPoP` proof is
/// checked before any grant runs (docs/reference.md, "DPoP"): a failing one changes nothing.
struct TokenEndpoint {
    let exchanges: ProviderExchanges
    let clients: ClientRegistry
    let refresh: RefreshTokenGrant
    let authorizationCode: AuthorizationCodeGrant
    let dpop: DPoPProofCheck
    let metrics: ServerMetrics

    /// The grant types this endpoint serves, for discovery.
    static var grantTypes: [String] { ["authorization_code", "refresh_token", TokenExchangeURN.grantType] }

    func register(on routes: RouteRegistrar) {
        routes.add(.token) { request, context in
            let parameters = try await OAuthParameters.parse(request)
            let clientIP = context.clientIP
            let grant = try parameters.required("grant_type")
            // A refresh records the proof's jti in its rotation statement (one round trip), where an
            // identical resend within the grace is its retry, not a replayed proof.
            let proof = try await dpop.check(
                request.headers[values: .dpop], method: "POST", path: Route.token.path,
                recordsJTI: grant != "refresh_token")
            let response: TokenResponse
            switch grant {
            case "refresh_token":
                response = try await refresh.refresh(RefreshTokenGrant.Request(
                    refreshToken: try parameters.required("refresh_token"), clientID: try parameters.required("client_id"),
                    scope: try parameters.optional("scope"), dpopProof: proof), logger: context.logger)
            case "authorization_code":
                // RFC 6749 §4.1.3 with RFC 7636 §4.5: all four are required (docs/reference.md, "Hosted sign-in").
                response = try await authorizationCode.redeem(AuthorizationCodeGrant.Request(
                    code: try parameters.required("code"), redirectURI: try parameters.required("redirect_uri"),
                    clientID: try parameters.required("client_id"), codeVerifier: try parameters.required("code_verifier"),
                    dpopThumbprint: proof?.thumbprint),
                    logger: context.logger)
            case TokenExchangeURN.grantType:
                response = try await tokenExchange(
                    parameters, userAgent: request.headers[.userAgent], clientIP: clientIP, dpopThumbprint: proof?.thumbprint,
                    logger: context.logger)
            default:
                throw OAuthError(.unsupportedGrantType, "The grant_type is not supported.")
            }
            metrics.recordTokensIssued(grant: grant)
            return response.response
        }
    }

    /// RFC 8693 §2.1 with a provider's ID token as `subject_token`, the provider being the one
    /// whose issuer is the token's `iss`; or with a provider's access token, the provider named by
    /// `subject_issuer` and taking access tokens (docs/reference.md, "Token endpoint" and "Facebook").
    private func tokenExchange(
        _ parameters: OAuthParameters, userAgent: String?, clientIP: String?, dpopThumbprint: String?, logger: Logger
    ) async throws(OAuthError) -> TokenResponse {
        let subjectToken = try parameters.required("subject_token")
        let type = try parameters.required("subject_token_type")
        guard type == TokenExchangeURN.idTokenType || type == TokenExchangeURN.accessTokenType else {
            throw .invalidRequest("subject_token_type must be \(TokenExchangeURN.idTokenType) or \(TokenExchangeURN.accessTokenType).")
        }
        if let requested = try parameters.optional("requested_token_type"), requested != TokenExchangeURN.accessTokenType {
            throw .invalidRequest("Only \(TokenExchangeURN.accessTokenType) can be requested.")
        }
        let exchange: IdentityExchange
        let credential: NativeCredential
        if type == TokenExchangeURN.accessTokenType {
            let issuer = try parameters.optional("subject_issuer")
            guard let issuer, let named = exchanges.exchange(named: issuer), named.takesAccessTokens else {
                throw .invalidRequest("An access token is exchanged with subject_issuer naming a provider that takes access tokens.")
            }
            exchange = named
            credential = .accessToken(subjectToken)
        } else {
            guard let chosen = exchanges.exchange(forToken: subjectToken) else {
                // The client is judged first, as every exchange judges it before the token.
                _ = try clients.authenticate(try parameters.required("client_id"))
                throw .invalidRequest("subject_token is not a valid identity token.", debug: "no provider issues its iss")
            }
            exchange = chosen
            credential = .idToken(subjectToken)
        }
        let request = IdentityExchange.Request(
            credential: credential, nonce: try parameters.optional("nonce"),
            clientID: try parameters.required("client_id"), scope: try parameters.optional("scope"),
            userAgent: userAgent, clientIP: clientIP, dpopThumbprint: dpopThumbprint)
        return try await exchange.exchange(request, style: .tokenExchange, logger: logger)
    }
}
