import HTTPTypes
import Hummingbird
import IssuerCore

/// `DELETE /account` (docs/reference.md, "Account deletion"): the two proofs of one session —
/// the bearer access token as `/userinfo` takes it (RFC 6750: none answers a bare `401`
/// challenge, a bad one `invalid_token`) and the session's `refresh_token` in a form or JSON
/// body — then the account is deleted and `204` answered. The answer waits on Apple for about
/// 2 seconds at most.
struct AccountEndpoint {
    let accounts: AccountService

    func register(on routes: RouteRegistrar) {
        routes.add(.account) { request, context in
            guard let token = UserInfoEndpoint.bearerToken(request.headers[.authorization]) else {
                return Response(status: .unauthorized, headers: [.wwwAuthenticate: "Bearer", .cacheControl: "no-store"])
            }
            // Read now, judged after the bearer: a body problem never answers a caller without
            // credentials. No body at all is a missing refresh token.
            let body: Result<String?, OAuthError>
            if request.headers[.contentType] == nil {
                body = .success(nil)
            } else {
                do throws(OAuthError) {
                    body = .success(try await OAuthParameters.parse(request).optional("refresh_token"))
                } catch {
                    body = .failure(error)
                }
            }
            try await accounts.deleteAccount(accessToken: token, body: body, logger: context.logger)
            return Response(status: .noContent, headers: [.cacheControl: "no-store"])
        }
    }
}
