import Hummingbird
import IssuerCore

/// docs/reference.md, "Google and other OpenID providers", `POST /auth/{provider}/exchange`: a
/// native app's sign-in with any configured provider's ID token (Android's Credential Manager
/// for Google), answered as Apple's exchange is. A provider that is not configured is a `404`.
struct ProviderExchangeEndpoint {
    let exchanges: ProviderExchanges
    let metrics: ServerMetrics

    func register(on routes: RouteRegistrar) {
        routes.add(.providerExchange) { request, context in
            let name = context.parameters.get("provider") ?? ""
            guard let exchange = exchanges.exchange(named: name) else {
                throw OAuthError(.invalidRequest, "No provider called \(name.prefix(32)) is configured.", status: 404)
            }
            let parameters = try await OAuthParameters.parse(request)
            let exchangeRequest = try AppleExchangeEndpoint.exchangeRequest(parameters, request: request, context: context)
            let response = try await exchange.exchange(exchangeRequest, style: .nativeSignIn, logger: context.logger)
            metrics.recordTokensIssued(grant: "\(exchange.provider.name)_exchange")
            return response.response
        }
    }
}
