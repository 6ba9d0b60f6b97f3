import Foundation
import HTTPTypes
import Hummingbird
import IssuerCore

/// docs/reference.md, "Discovery": `GET {path}/.well-known/openid-configuration` (OIDC Discovery §4) and the RFC 8414
/// §3 alias `GET /.well-known/oauth-authorization-server{path}`. The body is encoded once.
struct DiscoveryEndpoint {
    let body: ByteBuffer

    init(document: DiscoveryDocument) {
        body = ByteBuffer(bytes: (try? JSONEncoder.oauth.encode(document)) ?? Data("{}".utf8))
    }

    func register(on routes: RouteRegistrar) {
        let respond: RouteRegistrar.Handler = { [answer] _, _ in
            Response(status: answer.status, headers: answer.headers, body: .init(byteBuffer: answer.body ?? ByteBuffer()))
        }
        routes.add(.openIDConfiguration, use: respond)
        routes.add(.authorizationServerMetadata, use: respond)
    }

    /// The one answer, whatever the request says.
    var answer: StaticAnswer {
        StaticAnswer(
            status: .ok,
            headers: [.contentType: "application/json", .cacheControl: "public, max-age=3600", .accessControlAllowOrigin: "*"],
            body: body)
    }

    /// The routes for `StaticRouteHandler` at `paths`: the same answer, encoded once.
    func staticEntries(paths: [String]) -> [(String, StaticRoutes.Entry)] {
        let encoded = EncodedAnswer(answer)
        return paths.map { ($0, StaticRoutes.Entry(route: RouterPath($0).description) { _ in encoded }) }
    }
}
