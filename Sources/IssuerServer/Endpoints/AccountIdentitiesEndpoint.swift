import Hummingbird
import IssuerCore

/// docs/reference.md, "Linked identities": `POST /account/identities` links one more identity
/// (`provider`, `id_token` and `nonce`, or Facebook's `access_token`, with the two proofs), `DELETE /account/identities/{provider}`
/// unlinks one; the proofs and the link's fields are read from the request context, where
/// `SessionProofMiddleware` put them.
struct AccountIdentitiesEndpoint {
    let identities: AccountIdentities

    func register(on routes: RouteRegistrar) {
        routes.add(.accountIdentities) { _, context in
            // The identity to link came in the body of the second proof, read once by its step.
            let session = try context.requireSession()
            let account = try await identities.link(
                provider: session.fields["provider"] ?? "", idToken: session.fields["id_token"],
                accessToken: session.fields["access_token"], nonce: session.fields["nonce"],
                authorizationCode: session.fields["authorization_code"], by: session.proven, logger: context.logger)
            return try AccountEndpoint.account(account)
        }
        routes.add(.accountIdentity) { _, context in
            try await identities.unlink(
                provider: context.parameters.get("provider") ?? "", by: try context.requireSession().proven, logger: context.logger)
            return Response(status: .noContent, headers: [.cacheControl: "no-store"])
        }
    }
}
