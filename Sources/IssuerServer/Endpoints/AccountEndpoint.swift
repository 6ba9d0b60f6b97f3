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
                return Self.challenge
            }
            try await accounts.deleteAccount(accessToken: token, body: await Self.refreshToken(request), logger: context.logger)
            return Response(status: .noContent, headers: [.cacheControl: "no-store"])
        }
    }

    /// The second proof of an account change: the body's `refresh_token`, read now and judged
    /// after the bearer, so a body problem never answers a caller without credentials. No body
    /// at all is a missing refresh token.
    static func refreshToken(_ request: Request) async -> Result<String?, OAuthError> {
        guard request.headers[.contentType] != nil else { return .success(nil) }
        do throws(OAuthError) {
            return .success(try await OAuthParameters.parse(request).optional("refresh_token"))
        } catch {
            return .failure(error)
        }
    }

    /// RFC 6750 §3: no credentials at all is a bare `401` challenge.
    static let challenge = Response(status: .unauthorized, headers: [.wwwAuthenticate: "Bearer", .cacheControl: "no-store"])
}
