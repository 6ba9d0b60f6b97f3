import Foundation
import HTTPTypes
import Hummingbird
import IssuerCore

/// SPEC §3.5: `GET {path}/.well-known/openid-configuration` (OIDC Discovery §4) and the RFC 8414
/// §3 alias `GET /.well-known/oauth-authorization-server{path}`. The body is encoded once.
struct DiscoveryEndpoint {
    let body: ByteBuffer

    init(document: DiscoveryDocument) {
        body = ByteBuffer(bytes: (try? JSONEncoder.oauth.encode(document)) ?? Data("{}".utf8))
    }

    func register(on routes: RouteRegistrar) {
        let respond: RouteRegistrar.Handler = { [body] _, _ in
            Response(
                status: .ok,
                headers: [.contentType: "application/json", .cacheControl: "public, max-age=3600", .accessControlAllowOrigin: "*"],
                body: .init(byteBuffer: body))
        }
        routes.add(.openIDConfiguration, use: respond)
        routes.add(.authorizationServerMetadata, use: respond)
    }
}
