import Foundation
import HTTPTypes
import Hummingbird
import IssuerCore

/// `GET /account` (docs/reference.md, "Linked identities") with the bearer alone, and `DELETE
/// /account` (docs/reference.md, "Account deletion") with the two proofs of one session — the
/// bearer access token as `/userinfo` takes it (`AccessTokenAuthenticationMiddleware`) and the
/// session's `refresh_token` in a form or JSON body (`SessionProofMiddleware`) — after which the
/// account is deleted and `204` answered. The answer waits on Apple for about 2 seconds at most.
struct AccountEndpoint {
    let accounts: AccountService
    let identities: AccountIdentities

    func register(on routes: RouteRegistrar) {
        routes.add(.account) { request, context in
            if request.method == .get {
                return try Self.account(try await identities.account(bearer: try context.requireBearer()))
            }
            try await accounts.deleteAccount(try context.requireSession().proven, logger: context.logger)
            return Response(status: .noContent, headers: [.cacheControl: "no-store"])
        }
    }

    /// `{"sub", "identities": [{"provider", "email", "email_verified", "linked_at"}]}`
    /// (docs/reference.md, "Linked identities"): never a provider's `sub`, never a token.
    static func account(_ account: (userID: UUID, identities: [LinkedIdentity])) throws -> Response {
        let body = try JSONSerialization.data(withJSONObject: [
            "sub": account.userID.lowercaseText,
            "identities": account.identities.map { identity in
                [
                    "provider": identity.provider, "email": identity.email ?? NSNull(),
                    "email_verified": identity.emailVerified ?? NSNull(), "linked_at": identity.linkedAt.formatted(.iso8601),
                ] as [String: Any]
            },
        ], options: [.sortedKeys])
        return Response(status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"], body: .init(byteBuffer: ByteBuffer(data: body)))
    }
}
