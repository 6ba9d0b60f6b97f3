import Hummingbird
import IssuerCore

/// docs/reference.md, "Hosted sign-in", `GET /oauth2/authorize` (RFC 6749 §4.1.1, RFC 7636, OIDC Core §3.1.2; `POST` too,
/// as OIDC Core §3.1.2.1 asks): read the parameters → decide → a page (the chooser, or a
/// refusal), or a redirect to a provider or back to the client with an error.
struct AuthorizationEndpoint {
    let hostedSignIn: HostedSignIn

    func register(on routes: RouteRegistrar) {
        routes.add(.authorization) { request, context in
            let parameters: BrowserParameters
            do {
                parameters = try await BrowserParameters.read(request, context: context)
            } catch {
                return HTMLPage.page(status: 400, message: "The sign-in request is malformed.")
            }
            return await hostedSignIn.authorize(parameters.values, repeated: parameters.repeated).response
        }
    }
}

extension HostedSignIn.Outcome {
    /// A `302` or a plain page, both with the headers (docs/reference.md, "Hosted sign-in").
    var response: Response {
        switch self {
        case .redirect(let location): HTMLPage.redirect(to: location)
        case .page(let status, let message): HTMLPage.page(status: status, message: message)
        case .choose(let choices): HTMLPage.chooser(choices.map { ($0.label, $0.url) })
        }
    }
}
