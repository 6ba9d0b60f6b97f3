import Hummingbird
import IssuerCore

/// docs/reference.md, "Sign-out", `GET`/`POST /oauth2/logout` (RP-Initiated Logout 1.0): the end-session endpoint
/// an app opens in the system browser. Read the parameters → end the session → a redirect or a
/// page (docs/reference.md, "The pages people see").
struct LogoutEndpoint {
    let endSession: EndSession
    let pages: PageRenderer

    func register(on routes: RouteRegistrar) {
        routes.add(.logout) { request, context in
            let parameters: BrowserParameters
            do {
                parameters = try await BrowserParameters.read(request, context: context)
            } catch {
                return pages.page(.signOut, status: 400, message: PageMessage(.signOutMalformed), for: request)
            }
            guard parameters.repeated.isEmpty else {
                return pages.page(.signOut, status: 400, message: PageMessage(.signOutParameterRepeated), for: request)
            }
            let outcome = await endSession.end(EndSession.Request(
                idTokenHint: parameters["id_token_hint"], clientID: parameters["client_id"],
                postLogoutRedirectURI: parameters["post_logout_redirect_uri"], state: parameters["state"]),
                logger: context.logger)
            switch outcome {
            case .redirect(let location): return HTMLPage.redirect(to: location)
            case .page(let status, let message): return pages.page(.signOut, status: status, message: message, for: request)
            }
        }
    }
}
