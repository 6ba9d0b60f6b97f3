import Hummingbird
import IssuerCore

/// docs/reference.md, "Linked identities": `POST /account/identities` links one more identity
/// (`provider`, `id_token`, `nonce`, with the two proofs), `DELETE /account/identities/{provider}`
/// unlinks one.
struct AccountIdentitiesEndpoint {
    let identities: AccountIdentities

    func register(on routes: RouteRegistrar) {
        routes.add(.accountIdentities) { request, context in
            let bearer = try context.requireBearer()
            // One read of the body: the second proof and the identity to link.
            let parameters: Result<OAuthParameters, OAuthError>
            do throws(OAuthError) {
                parameters = .success(try await OAuthParameters.parse(request))
            } catch {
                parameters = .failure(error)
            }
            // A body problem (an array where a field is read included) is answered only after the
            // bearer is checked, as every account endpoint does: it travels with the second proof.
            let read = parameters.flatMap { fields in
                Result { () throws(OAuthError) in
                    (provider: try fields.optional("provider"), idToken: try fields.optional("id_token"), nonce: try fields.optional("nonce"),
                     authorizationCode: try fields.optional("authorization_code"), refreshToken: try fields.optional("refresh_token"))
                }
            }
            let fields = try? read.get()
            let account = try await identities.link(
                provider: fields?.provider ?? "", idToken: fields?.idToken, nonce: fields?.nonce,
                authorizationCode: fields?.authorizationCode, bearer: bearer, body: read.map(\.refreshToken), logger: context.logger)
            return try AccountEndpoint.account(account)
        }
        routes.add(.accountIdentity) { request, context in
            try await identities.unlink(
                provider: context.parameters.get("provider") ?? "", bearer: try context.requireBearer(), body: await AccountEndpoint.refreshToken(request),
                logger: context.logger)
            return Response(status: .noContent, headers: [.cacheControl: "no-store"])
        }
    }
}
