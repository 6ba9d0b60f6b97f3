import Hummingbird
import IssuerCore

/// What every provider's native sign-in does once its exchange is known (docs/reference.md,
/// "Native sign-in" and "Google and other OpenID providers"), shared by `/auth/apple/exchange`
/// and `/auth/{provider}/exchange` so that the two answer alike: parse the body → DPoP proof
/// (docs/reference.md, "DPoP") before anything else of the request is used → read the fields →
/// exchange → answer tokens.
struct NativeExchangeHandler {
    let dpop: DPoPProofCheck
    let metrics: ServerMetrics

    /// Answers `request`, which arrived at `path`, with `exchange`'s tokens.
    func respond(
        to request: Request, path: String, context: IssuerRequestContext, with exchange: IdentityExchange
    ) async throws -> Response {
        let parameters = try await OAuthParameters.parse(request)
        let proof = try await dpop.check(request.headers[values: .dpop], method: "POST", path: path)
        var exchangeRequest = try Self.exchangeRequest(
            parameters, request: request, context: context, takesAccessTokens: exchange.takesAccessTokens)
        exchangeRequest.dpopThumbprint = proof?.thumbprint
        let response = try await exchange.exchange(exchangeRequest, style: .nativeSignIn, logger: context.logger)
        metrics.recordTokensIssued(grant: "\(exchange.provider.name)_exchange")
        return response.response
    }

    /// The exchange body every provider's native sign-in takes (docs/reference.md, "Native
    /// sign-in"); `authorization_code` matters only where Apple token custody takes it.
    /// `takesAccessTokens`: the provider's app may send `access_token` instead of `id_token`
    /// (docs/reference.md, "Facebook"), exactly one of them.
    static func exchangeRequest(
        _ parameters: OAuthParameters, request: Request, context: IssuerRequestContext, takesAccessTokens: Bool = false
    ) throws -> IdentityExchange.Request {
        // docs/reference.md, "Native sign-in": `name` is an object of strings; any other shape is refused, not ignored.
        // An array is refused by `object`; a string or a number here.
        let name = try parameters.object("name")
        if name == nil, (try? parameters.optional("name")) != nil {
            throw OAuthError.invalidRequest("name must be an object with given_name and family_name strings.")
        }
        let credential: NativeCredential
        if takesAccessTokens {
            switch (try parameters.optional("id_token"), try parameters.optional("access_token")) {
            case (let idToken?, nil): credential = .idToken(idToken)
            case (nil, let accessToken?): credential = .accessToken(accessToken)
            default: throw OAuthError.invalidRequest("Send exactly one of id_token and access_token.")
            }
        } else {
            credential = .idToken(try parameters.required("id_token"))
        }
        return IdentityExchange.Request(
            credential: credential,
            nonce: try parameters.optional("nonce"),
            // docs/reference.md, "Native sign-in": `client_id` is optional; the exchange takes the registry's default.
            clientID: try parameters.optional("client_id"),
            scope: try parameters.optional("scope"),
            givenName: name?["given_name"].flatMap { $0.isEmpty ? nil : $0 },
            familyName: name?["family_name"].flatMap { $0.isEmpty ? nil : $0 },
            userAgent: request.headers[.userAgent],
            clientIP: context.clientIP,
            authorizationCode: try parameters.optional("authorization_code"))
    }
}
