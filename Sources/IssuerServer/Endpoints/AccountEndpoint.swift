import HTTPTypes
import Hummingbird
import IssuerCore

/// SPEC §3.8, `DELETE /account`: the bearer's account is deleted, then `204`. Credentials as
/// `/userinfo` takes them (RFC 6750): none answers a bare `401` challenge, a bad token
/// `invalid_token`. The answer waits on Apple for about 2 seconds at most.
struct AccountEndpoint {
    let accounts: AccountService

    func register(on routes: RouteRegistrar) {
        routes.add(.account) { request, context in
            guard let token = UserInfoEndpoint.bearerToken(request.headers[.authorization]) else {
                return Response(status: .unauthorized, headers: [.wwwAuthenticate: "Bearer", .cacheControl: "no-store"])
            }
            try await accounts.deleteAccount(accessToken: token, logger: context.logger)
            return Response(status: .noContent, headers: [.cacheControl: "no-store"])
        }
    }
}
