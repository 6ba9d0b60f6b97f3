import Hummingbird
import IssuerCore

/// docs/reference.md, "Google and other OpenID providers", `POST /auth/{provider}/exchange`: a
/// native app's sign-in with any configured provider's ID token (Android's Credential Manager
/// for Google), answered as Apple's exchange is. A provider that is not configured is a `404`.
struct ProviderExchangeEndpoint {
    let exchanges: ProviderExchanges
    let dpop: DPoPProofCheck
    let metrics: ServerMetrics

    func register(on routes: RouteRegistrar) {
        routes.add(.providerExchange) { request, context in
            let name = context.parameters.get("provider") ?? ""
            guard let exchange = exchanges.exchange(named: name) else {
                throw OAuthError(.invalidRequest, "No provider called \(name.prefix(32)) is configured.", status: 404)
            }
            let parameters = try await OAuthParameters.parse(request)
            // docs/reference.md, "DPoP": the proof before anything else of the request is used.
            let proof = try await dpop.check(
                request.headers[values: .dpop], method: "POST", path: "/auth/\(name)/exchange")
            var exchangeRequest = try AppleExchangeEndpoint.exchangeRequest(parameters, request: request, context: context)
            exchangeRequest.dpopThumbprint = proof?.thumbprint
            let response = try await exchange.exchange(exchangeRequest, style: .nativeSignIn, logger: context.logger)
            metrics.recordTokensIssued(grant: "\(exchange.provider.name)_exchange")
            return response.response
        }
    }
}
