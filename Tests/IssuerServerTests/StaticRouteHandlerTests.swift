import HTTPTypes
@testable import IssuerServer
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import Testing

/// The event-loop answers of the static routes (JWKS, discovery): the same answer as the router
/// gives, and never out of order or in place of a request the router must see.
@Suite("Static routes answered before the router")
struct StaticRouteHandlerTests {
    static let body = ByteBuffer(string: #"{"keys":[]}"#)

    static func channel(metrics: ServerMetrics = ServerMetrics()) throws -> EmbeddedChannel {
        let answer = StaticAnswer(
            status: .ok, headers: [.contentType: "application/json", .cacheControl: "public, max-age=300"], body: body)
        let routes = StaticRoutes(entries: [
            "/oauth2/jwks.json": StaticRoutes.Entry(route: "/oauth2/jwks.json") { headers in
                headers[.ifNoneMatch] == "\"v1\"" ? StaticAnswer(status: .notModified, headers: [.eTag: "\"v1\""], body: nil) : answer
            },
        ])
        return EmbeddedChannel(handler: StaticRouteHandler(routes: routes, metrics: metrics, serverName: "issuer"))
    }

    static func request(_ method: HTTPRequest.Method, _ path: String, _ headers: HTTPFields = [:]) -> HTTPRequestPart {
        .head(HTTPRequest(method: method, scheme: "http", authority: "localhost", path: path, headerFields: headers))
    }

    /// Every part written out, in order.
    static func written(_ channel: EmbeddedChannel) throws -> [HTTPResponsePart] {
        var parts: [HTTPResponsePart] = []
        while let part = try channel.readOutbound(as: HTTPResponsePart.self) { parts.append(part) }
        return parts
    }

    /// Every part passed on to the router, in order.
    static func passedOn(_ channel: EmbeddedChannel) throws -> [HTTPRequestPart] {
        var parts: [HTTPRequestPart] = []
        while let part = try channel.readInbound(as: HTTPRequestPart.self) { parts.append(part) }
        return parts
    }

    @Test("a GET of a static path is answered at once, with the answer's headers and what the server adds; a query is ignored")
    func answers() throws {
        let metrics = ServerMetrics()
        let channel = try Self.channel(metrics: metrics)
        for path in ["/oauth2/jwks.json", "/oauth2/jwks.json?cache=bust"] {
            try channel.writeInbound(Self.request(.get, path))
            try channel.writeInbound(HTTPRequestPart.end(nil))
            let parts = try Self.written(channel)
            #expect(parts.count == 3)
            guard case .head(let head) = parts.first, case .body(let body) = parts[1], case .end = parts[2] else {
                Issue.record("not head, body, end: \(parts)")
                continue
            }
            #expect(head.status == .ok)
            #expect(head.headerFields[.contentType] == "application/json")
            #expect(head.headerFields[.cacheControl] == "public, max-age=300")
            #expect(head.headerFields[.contentLength] == String(Self.body.readableBytes))
            #expect(head.headerFields[.server] == "issuer")
            #expect(head.headerFields[.date]?.hasSuffix(" GMT") == true)
            #expect(head.headerFields[HTTPField.Name("X-Request-Id")!]?.count == 32)
            #expect(body == Self.body)
            #expect(try Self.passedOn(channel).isEmpty, "the router never sees it")
        }
        var exposition = [UInt8]()
        metrics.registry.emit(into: &exposition)
        #expect(String(decoding: exposition, as: UTF8.self)
            .contains(#"issuer_http_requests_total{route="/oauth2/jwks.json",method="GET",status="200"} 2"#))
    }

    @Test("the answer reads the request's headers: a matching If-None-Match is a 304 without a body")
    func conditional() throws {
        let channel = try Self.channel()
        try channel.writeInbound(Self.request(.get, "/oauth2/jwks.json", [.ifNoneMatch: "\"v1\""]))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        let parts = try Self.written(channel)
        guard case .head(let head) = parts.first else { Issue.record("no head: \(parts)"); return }
        #expect(head.status == .notModified)
        #expect(head.headerFields[.contentLength] == nil)
        #expect(parts.count == 2)
    }

    @Test("other paths, other methods and a request to close the connection go to the router untouched", arguments: [
        request(.get, "/oauth2/token"),
        request(.post, "/oauth2/jwks.json"),
        request(.head, "/oauth2/jwks.json"),
        request(.get, "/oauth2/jwks.json", [.connection: "close"]),
    ])
    func passes(_ head: HTTPRequestPart) throws {
        let channel = try Self.channel()
        try channel.writeInbound(head)
        try channel.writeInbound(HTTPRequestPart.end(nil))
        #expect(try Self.passedOn(channel) == [head, .end(nil)])
        #expect(try Self.written(channel).isEmpty)
    }

    @Test("while the router answers an earlier request, a pipelined GET waits its turn behind it")
    func pipelined() throws {
        let channel = try Self.channel()
        let token = Self.request(.post, "/oauth2/token")
        let jwks = Self.request(.get, "/oauth2/jwks.json")
        try channel.writeInbound(token)
        try channel.writeInbound(HTTPRequestPart.end(nil))
        try channel.writeInbound(jwks)
        try channel.writeInbound(HTTPRequestPart.end(nil))
        #expect(try Self.passedOn(channel) == [token, .end(nil), jwks, .end(nil)], "both go to the router, in order")
        #expect(try Self.written(channel).isEmpty)
        // The router answers both; then the connection is free and the next GET is answered here.
        for _ in 0..<2 {
            try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .ok)))
            try channel.writeOutbound(HTTPResponsePart.end(nil))
        }
        #expect(try Self.written(channel).count == 4)
        try channel.writeInbound(jwks)
        try channel.writeInbound(HTTPRequestPart.end(nil))
        #expect(try Self.passedOn(channel).isEmpty)
        #expect(try Self.written(channel).count == 3)
    }

    @Test("a body sent with a static GET is dropped with it, not passed on as a stray request part")
    func bodyDropped() throws {
        let channel = try Self.channel()
        try channel.writeInbound(Self.request(.get, "/oauth2/jwks.json", [.contentLength: "3"]))
        try channel.writeInbound(HTTPRequestPart.body(ByteBuffer(string: "abc")))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        #expect(try Self.passedOn(channel).isEmpty)
        #expect(try Self.written(channel).count == 3)
    }
}
