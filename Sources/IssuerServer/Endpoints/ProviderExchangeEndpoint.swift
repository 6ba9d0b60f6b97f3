import Hummingbird
import IssuerCore

/// docs/reference.md, "Google and other OpenID providers", `POST /auth/{provider}/exchange`: a
/// native app's sign-in with any configured provider's ID token (Android's Credential Manager
/// for Google), answered as Apple's exchange is (`NativeExchangeHandler`). A provider that is
/// not configured is a `404`.
struct ProviderExchangeEndpoint {
    let exchanges: ProviderExchanges
    let dpop: DPoPProofCheck
    let metrics: ServerMetrics

    func register(on routes: RouteRegistrar) {
        let handler = NativeExchangeHandler(dpop: dpop, metrics: metrics)
        routes.add(.providerExchange) { request, context in
            let name = context.parameters.get("provider") ?? ""
            guard let exchange = exchanges.exchange(named: name) else {
                throw OAuthError(.invalidRequest, "No provider called \(name.prefix(32)) is configured.", status: 404)
            }
            return try await handler.respond(to: request, path: "/auth/\(name)/exchange", context: context, with: exchange)
        }
    }
}
