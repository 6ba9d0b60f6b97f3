import Foundation
import HTTPTypes
import Hummingbird
import IssuerCore

/// docs/reference.md, "UserInfo", `GET`/`POST /userinfo` (OIDC Core §5.3) with RFC 6750 bearer tokens: no
/// credentials answers a bare `401` with `WWW-Authenticate: Bearer` (RFC 6750 §3.1, no error
/// code); a bad token answers `401` with `error="invalid_token"`.
struct UserInfoEndpoint {
    let service: UserInfoService

    func register(on routes: RouteRegistrar) {
        routes.add(.userinfo) { request, _ in
            guard let token = Self.bearerToken(request.headers[.authorization]) else {
                return Response(status: .unauthorized, headers: [.wwwAuthenticate: "Bearer", .cacheControl: "no-store"])
            }
            let claims = try await service.claims(accessToken: token)
            let body = try JSONEncoder.oauth.encode(claims)
            return Response(
                status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store", .pragma: "no-cache"],
                body: .init(byteBuffer: ByteBuffer(bytes: body)))
        }
    }

    /// RFC 6750 §2.1: `Bearer <token>`, scheme case-insensitive. Nil when absent or another scheme.
    static func bearerToken(_ header: String?) -> String? {
        guard let header else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }
}
