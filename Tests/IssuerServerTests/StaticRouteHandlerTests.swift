import HTTPTypes
@testable import IssuerServer
import NIOCore
import NIOEmbedded
import NIOHTTP1
import Synchronization
import Testing

/// The event-loop answers of the static routes (JWKS, discovery): the same answer as the router
/// gives, and never out of order or in place of a request the router must see.
@Suite("Static routes answered before the router")
struct StaticRouteHandlerTests {
    static let body = ByteBuffer(string: #"{"keys":[]}"#)

    static func channel(metrics: ServerMetrics = ServerMetrics()) throws -> EmbeddedChannel {
        let answer = EncodedAnswer(
            StaticAnswer(status: .ok, headers: [.contentType: "application/json", .cacheControl: "public, max-age=300"], body: body))
        let notModified = EncodedAnswer(StaticAnswer(status: .notModified, headers: [.eTag: "\"v1\""], body: nil))
        let routes = StaticRoutes(entries: [
            "/oauth2/jwks.json": StaticRoutes.Entry(route: "/oauth2/jwks.json") { ifNoneMatch in
                ifNoneMatch == "\"v1\"" ? notModified : answer
            },
        ])
        return EmbeddedChannel(handler: StaticRouteHandler(routes: routes, metrics: metrics))
    }

    static func request(
        _ method: HTTPMethod, _ path: String, _ headers: HTTPHeaders = [:], version: HTTPVersion = .http1_1
    ) -> HTTPServerRequestPart {
        .head(HTTPRequestHead(version: version, method: method, uri: path, headers: headers))
    }

    /// Every part written out, in order.
    static func written(_ channel: EmbeddedChannel) throws -> [HTTPServerResponsePart] {
        var parts: [HTTPServerResponsePart] = []
        while let part = try channel.readOutbound(as: HTTPServerResponsePart.self) { parts.append(part) }
        return parts
    }

    /// Every part passed on to the router, in order.
    static func passedOn(_ channel: EmbeddedChannel) throws -> [HTTPServerRequestPart] {
        var parts: [HTTPServerRequestPart] = []
        while let part = try channel.readInbound(as: HTTPServerRequestPart.self) { parts.append(part) }
        return parts
    }

    @Test("a GET of a static path is answered at once, with the answer's headers and what the server adds; a query and keep-alive are ignored")
    func answers() throws {
        let metrics = ServerMetrics()
        let channel = try Self.channel(metrics: metrics)
        let requests = [
            Self.request(.GET, "/oauth2/jwks.json"),
            Self.request(.GET, "/oauth2/jwks.json?cache=bust"),
            Self.request(.GET, "/oauth2/jwks.json", ["Connection": "Keep-Alive"]),
        ]
        for request in requests {
            try channel.writeInbound(request)
            try channel.writeInbound(HTTPServerRequestPart.end(nil))
            let parts = try Self.written(channel)
            #expect(parts.count == 3)
            guard case .head(let head) = parts.first, case .body(.byteBuffer(let body)) = parts[1], case .end = parts[2] else {
                Issue.record("not head, body, end: \(parts)")
                continue
            }
            #expect(head.status == .ok && head.version == .http1_1)
            #expect(head.headers["Content-Type"] == ["application/json"])
            #expect(head.headers["Cache-Control"] == ["public, max-age=300"])
            #expect(head.headers["Content-Length"] == [String(Self.body.readableBytes)])
            #expect(head.headers["Server"] == ["issuer"])
            #expect(head.headers["Date"].first?.hasSuffix(" GMT") == true)
            let requestID = head.headers["X-Request-Id"].first ?? ""
            #expect(requestID.count == 32 && requestID.allSatisfy(\.isHexDigit) && requestID == requestID.lowercased())
            #expect(body == Self.body)
            #expect(try Self.passedOn(channel).isEmpty, "the router never sees it")
        }
        #expect(MetricsExposition.text(metrics)
            .contains(#"issuer_http_requests_total{route="/oauth2/jwks.json",method="GET",status="200"} 3"#))
    }

    @Test("the answer reads the request's headers: a matching If-None-Match is a 304 without a body")
    func conditional() throws {
        let channel = try Self.channel()
        try channel.writeInbound(Self.request(.GET, "/oauth2/jwks.json", ["If-None-Match": "\"v1\""]))
        try channel.writeInbound(HTTPServerRequestPart.end(nil))
        let parts = try Self.written(channel)
        guard case .head(let head) = parts.first else { Issue.record("no head: \(parts)"); return }
        #expect(head.status == .notModified)
        #expect(head.headers["Content-Length"].isEmpty)
        #expect(parts.count == 2)
    }

    @Test("other paths, other methods, HTTP/1.0 and Connection options but keep-alive go to the router untouched", arguments: [
        request(.GET, "/oauth2/token"),
        request(.POST, "/oauth2/jwks.json"),
        request(.HEAD, "/oauth2/jwks.json"),
        request(.GET, "/oauth2/jwks.json", ["Connection": "close"]),
        request(.GET, "/oauth2/jwks.json", ["connection": "keep-alive, Upgrade"]),
        request(.GET, "/oauth2/jwks.json", version: .http1_0),
        request(.GET, "/oauth2/jwks.json/"),
        request(.GET, "http://localhost/oauth2/jwks.json"),
    ])
    func passes(_ head: HTTPServerRequestPart) throws {
        let channel = try Self.channel()
        try channel.writeInbound(head)
        try channel.writeInbound(HTTPServerRequestPart.end(nil))
        #expect(try Self.passedOn(channel) == [head, .end(nil)])
        #expect(try Self.written(channel).isEmpty)
    }

    @Test("while the router answers an earlier request, a pipelined GET waits its turn behind it")
    func pipelined() throws {
        let channel = try Self.channel()
        let token = Self.request(.POST, "/oauth2/token")
        let jwks = Self.request(.GET, "/oauth2/jwks.json")
        try channel.writeInbound(token)
        try channel.writeInbound(HTTPServerRequestPart.end(nil))
        try channel.writeInbound(jwks)
        try channel.writeInbound(HTTPServerRequestPart.end(nil))
        #expect(try Self.passedOn(channel) == [token, .end(nil), jwks, .end(nil)], "both go to the router, in order")
        #expect(try Self.written(channel).isEmpty)
        // The router answers both; then the connection is free and the next GET is answered here.
        for _ in 0..<2 {
            try channel.writeOutbound(HTTPServerResponsePart.head(HTTPResponseHead(version: .http1_1, status: .ok)))
            try channel.writeOutbound(HTTPServerResponsePart.end(nil))
        }
        #expect(try Self.written(channel).count == 4)
        try channel.writeInbound(jwks)
        try channel.writeInbound(HTTPServerRequestPart.end(nil))
        #expect(try Self.passedOn(channel).isEmpty)
        #expect(try Self.written(channel).count == 3)
    }

    @Test("a body sent with a static GET is dropped with it, not passed on as a stray request part")
    func bodyDropped() throws {
        let channel = try Self.channel()
        try channel.writeInbound(Self.request(.GET, "/oauth2/jwks.json", ["Content-Length": "3"]))
        try channel.writeInbound(HTTPServerRequestPart.body(ByteBuffer(string: "abc")))
        try channel.writeInbound(HTTPServerRequestPart.end(nil))
        #expect(try Self.passedOn(channel).isEmpty)
        #expect(try Self.written(channel).count == 3)
    }

    @Test("several If-None-Match lines are one list (RFC 9110 §5.3): the route sees them joined")
    func conditionLines() throws {
        let seen = Mutex<[String?]>([])
        let answer = EncodedAnswer(StaticAnswer(status: .ok, headers: [:], body: Self.body))
        let channel = EmbeddedChannel(handler: StaticRouteHandler(routes: StaticRoutes(entries: [
            "/oauth2/jwks.json": StaticRoutes.Entry(route: "/oauth2/jwks.json") { ifNoneMatch in
                seen.withLock { $0.append(ifNoneMatch) }
                return answer
            },
        ]), metrics: ServerMetrics()))
        let requests = [
            HTTPHeaders(),
            HTTPHeaders([("If-None-Match", "\"a\"")]),
            HTTPHeaders([("If-None-Match", "\"a\""), ("if-none-match", "\"b\"")]),
        ]
        for headers in requests {
            try channel.writeInbound(Self.request(.GET, "/oauth2/jwks.json", headers))
            try channel.writeInbound(HTTPServerRequestPart.end(nil))
        }
        #expect(seen.withLock { $0 } == [nil, "\"a\"", "\"a\", \"b\""])
    }
}
