import Hummingbird
import IssuerCore

/// docs/reference.md, "Hosted sign-in", `POST /auth/apple/callback`: Apple's `form_post` after Sign in with Apple on the
/// web. Read the form → verify, sign in, store a code → redirect the client (or a page).
struct AppleCallbackEndpoint {
    let hostedSignIn: HostedSignIn
    let pages: PageRenderer

    func register(on routes: RouteRegistrar) {
        routes.add(.appleCallback) { request, context in
            let form: BrowserParameters
            do {
                form = try await BrowserParameters.read(request, context: context)
            } catch {
                return pages.page(.signIn, status: 400, message: PageMessage(.responseMalformed), for: request)
            }
            guard form.repeated.isEmpty else {
                return pages.page(.signIn, status: 400, message: PageMessage(.responseMalformed), for: request)
            }
            return await hostedSignIn.callback(
                AppleHostedFlow.id, responseMode: .formPost, parameters: form.values, userAgent: request.headers[.userAgent],
                clientIP: context.clientIP, logger: context.logger
            ).response(pages, for: request)
        }
    }
}
