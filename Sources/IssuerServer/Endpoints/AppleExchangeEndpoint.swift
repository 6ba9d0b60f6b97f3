import Hummingbird
import IssuerCore

/// docs/reference.md, "Native sign-in", `POST /auth/apple/exchange`: the native app's Sign in
/// with Apple, answered by the steps every provider's native sign-in shares (`NativeExchangeHandler`).
struct AppleExchangeEndpoint {
    let exchange: IdentityExchange
    let dpop: DPoPProofCheck
    let metrics: ServerMetrics

    func register(on routes: RouteRegistrar) {
        let handler = NativeExchangeHandler(dpop: dpop, metrics: metrics)
        routes.add(.appleExchange) { request, context in
            try await handler.respond(to: request, path: Route.appleExchange.path, context: context, with: exchange)
        }
    }
}
