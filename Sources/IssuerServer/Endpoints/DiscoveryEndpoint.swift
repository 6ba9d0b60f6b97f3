import Foundation
import HTTPTypes
import Hummingbird
import IssuerCore

/// SPEC §3.5: `GET {path}/.well-known/openid-configuration` (OIDC Discovery §4) and the RFC 8414
/// §3 alias `GET /.well-known/oauth-authorization-server{path}`. The body is encoded once.
struct DiscoveryEndpoint<Context: RequestContext> {
    let body: ByteBuffer

    init(document: DiscoveryDocument) {
        body = ByteBuffer(bytes: (try? JSONEncoder.oauth.encode(document)) ?? Data("{}".utf8))
    }

    func register(on router: Router<Context>, prefix: String) {
        let respond: @Sendable (Request, Context) async throws -> Response = { [body] _, _ in
            Response(
                status: .ok,
                headers: [.contentType: "application/json", .cacheControl: "public, max-age=3600", .accessControlAllowOrigin: "*"],
                body: .init(byteBuffer: body))
        }
        router.get("\(prefix)/.well-known/openid-configuration", use: respond)
        router.get("/.well-known/oauth-authorization-server\(prefix)", use: respond)
    }
}
