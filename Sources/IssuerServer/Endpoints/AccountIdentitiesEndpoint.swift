import Hummingbird
import IssuerCore

/// docs/reference.md, "Linked identities": `POST /account/identities` links one more identity
/// (`provider`, `id_token`, `nonce`, with the two proofs), `DELETE /account/identities/{provider}`
/// unlinks one.
struct AccountIdentitiesEndpoint {
    let identities: AccountIdentities

    func register(on routes: RouteRegistrar) {
        routes.add(.accountIdentities) { request, context in
            guard let token = UserInfoEndpoint.bearerToken(request.headers[.authorization]) else { return AccountEndpoint.challenge }
            // One read of the body: the second proof and the identity to link.
            let parameters: Result<OAuthParameters, OAuthError>
            do throws(OAuthError) {
                parameters = .success(try await OAuthParameters.parse(request))
            } catch {
                parameters = .failure(error)
            }
            let fields = try? parameters.get()
            let account = try await identities.link(
                provider: try fields?.optional("provider") ?? "", idToken: try fields?.optional("id_token"), nonce: try fields?.optional("nonce"),
                authorizationCode: try fields?.optional("authorization_code"), accessToken: token, body: parameters.flatMap { fields in Result { () throws(OAuthError) in try fields.optional("refresh_token") } }, logger: context.logger)
            return try AccountEndpoint.account(account)
        }
        routes.add(.accountIdentity) { request, context in
            guard let token = UserInfoEndpoint.bearerToken(request.headers[.authorization]) else { return AccountEndpoint.challenge }
            try await identities.unlink(
                provider: context.parameters.get("provider") ?? "", accessToken: token, body: await AccountEndpoint.refreshToken(request),
                logger: context.logger)
            return Response(status: .noContent, headers: [.cacheControl: "no-store"])
        }
    }
}
