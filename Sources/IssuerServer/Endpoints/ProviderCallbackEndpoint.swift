import Hummingbird
import IssuerCore

/// docs/reference.md, "Hosted sign-in", `GET /auth/{provider}/callback`: a provider's redirect
/// back after the user signed in there. Read the query → redeem the code, verify, sign in, store
/// a code → redirect the client (or a page).
struct ProviderCallbackEndpoint {
    let hostedSignIn: HostedSignIn
    let pages: PageRenderer

    func register(on routes: RouteRegistrar) {
        routes.add(.providerCallback) { request, context in
            let query: BrowserParameters
            do {
                query = try await BrowserParameters.read(request, context: context)
            } catch {
                return pages.page(.signIn, status: 400, message: PageMessage(.responseMalformed), for: request)
            }
            guard query.repeated.isEmpty else {
                return pages.page(.signIn, status: 400, message: PageMessage(.responseMalformed), for: request)
            }
            return await hostedSignIn.callback(
                context.parameters.get("provider") ?? "", responseMode: .query, parameters: query.values,
                userAgent: request.headers[.userAgent], clientIP: context.clientIP, logger: context.logger
            ).response(pages, for: request)
        }
    }
}
