import Hummingbird
import IssuerCore

/// docs/reference.md, "Hosted sign-in", `GET /oauth2/authorize` (RFC 6749 §4.1.1, RFC 7636, OIDC Core §3.1.2; `POST` too,
/// as OIDC Core §3.1.2.1 asks): read the parameters → decide → a page (the chooser, or a
/// refusal), or a redirect to a provider or back to the client with an error.
struct AuthorizationEndpoint {
    let hostedSignIn: HostedSignIn
    let pages: PageRenderer

    func register(on routes: RouteRegistrar) {
        routes.add(.authorization) { request, context in
            let parameters: BrowserParameters
            do {
                parameters = try await BrowserParameters.read(request, context: context)
            } catch {
                return pages.page(.signIn, status: 400, message: PageMessage(.requestMalformed), for: request)
            }
            return await hostedSignIn.authorize(parameters.values, repeated: parameters.repeated).response(pages, for: request)
        }
    }
}

extension HostedSignIn.Outcome {
    /// A `302`, the sign-in page or a refusal, all with the pages' headers (docs/reference.md,
    /// "Hosted sign-in" and "The pages people see").
    func response(_ pages: PageRenderer, for request: Request) -> Response {
        switch self {
        case .redirect(let location): HTMLPage.redirect(to: location)
        case .page(let status, let message): pages.page(.signIn, status: status, message: message, for: request)
        case .choose(let choices, let client): pages.signIn(choices, client: client, for: request)
        }
    }
}
