import HTTPTypes
import Hummingbird
import IssuerCore

/// docs/reference.md, "Revocation", `POST /oauth2/revoke` (RFC 7009 §2): always `200` with an empty body for any
/// token, known or not, once the client is identified.
struct RevocationEndpoint {
    let revocation: TokenRevocation

    func register(on routes: RouteRegistrar) {
        routes.add(.revocation) { request, context in
            let parameters = try await OAuthParameters.parse(request)
            try await revocation.revoke(
                token: try parameters.required("token"), tokenTypeHint: try parameters.optional("token_type_hint"),
                clientID: try parameters.required("client_id"), logger: context.logger)
            return Response(status: .ok, headers: [.cacheControl: "no-store", .pragma: "no-cache"])
        }
    }
}
