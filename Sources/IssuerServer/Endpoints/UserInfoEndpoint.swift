import Foundation
import HTTPTypes
import Hummingbird
import IssuerCore

/// docs/reference.md, "UserInfo", `GET`/`POST /userinfo` (OIDC Core §5.3) with RFC 6750 bearer
/// tokens, verified by `AccessTokenAuthenticationMiddleware` (no credentials: a bare `401`
/// challenge; a bad token: `401 invalid_token`).
struct UserInfoEndpoint {
    let service: UserInfoService

    func register(on routes: RouteRegistrar) {
        routes.add(.userinfo) { _, context in
            let claims = try await service.claims(for: try context.requireBearer())
            let body = try JSONEncoder.oauth.encode(claims)
            return Response(
                status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store", .pragma: "no-cache"],
                body: .init(byteBuffer: ByteBuffer(bytes: body)))
        }
    }
}
