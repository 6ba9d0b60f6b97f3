@testable import IssuerServer
import Logging
import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing

/// Static answers written from ready bytes before NIO's HTTP/1 decoder, for as long as a
/// connection asks for nothing else; then the decoder has the connection, bytes in order.
@Suite("Static answers before the decoder")
struct ReadyAnswerHandlerTests {
    static let body = #"{"keys":[]}"#
    static let get = "GET /oauth2/jwks.json HTTP/1.1\r\nHost: localhost\r\n\r\n"

    static func routes() -> StaticRoutes {
        let answer = EncodedAnswer(StaticAnswer(
            status: .ok, headers: [.contentType: "application/json", .cacheControl: "public, max-age=300"],
            body: ByteBuffer(string: body)))
        let notModified = EncodedAnswer(StaticAnswer(status: .notModified, headers: [.eTag: "\"v1\""], body: nil))
        return StaticRoutes(entries: [
            "/oauth2/jwks.json": StaticRoutes.Entry(route: "/oauth2/jwks.json") { ifNoneMatch in
                ifNoneMatch == "\"v1\"" ? notModified : answer
            },
        ])
    }

    static func channel(metrics: ServerMetrics = ServerMetrics()) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        // A deadline outside the pipeline: told of answers, it has no connection to keep time for.
        let deadline = RequestReadTimeoutHandler(limit: .seconds(30))
        try channel.pipeline.syncOperations.addHandler(ReadyAnswerHandler(routes: routes(), metrics: metrics, deadline: deadline))
        return channel
    }

    /// Everything written out, as text.
    static func written(_ channel: EmbeddedChannel) throws -> String {
        var text = ""
        while var buffer = try channel.readOutbound(as: ByteBuffer.self) { text += buffer.readString(length: buffer.readableBytes) ?? "" }
        return text
    }

    /// Everything passed on to the decoder, as text.
    static func passedOn(_ channel: EmbeddedChannel) throws -> String {
        var text = ""
        while var buffer = try channel.readInbound(as: ByteBuffer.self) { text += buffer.readString(length: buffer.readableBytes) ?? "" }
        return text
    }

    static func write(_ channel: EmbeddedChannel, _ text: String) throws {
        try channel.writeInbound(ByteBuffer(string: text))
    }

    @Test("a plain GET of a static path is answered: status line, the answer's fields, Server, Date, a request id, the body; counted")
    func answers() throws {
        let metrics = ServerMetrics()
        let channel = try Self.channel(metrics: metrics)
        try Self.write(channel, Self.get)
        let answer = try Self.written(channel)
        #expect(answer.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(answer.hasSuffix("\r\n\r\n" + Self.body))
        let lines = answer.components(separatedBy: "\r\n")
        for field in ["Content-Type: application/json", "Cache-Control: public, max-age=300", "Server: issuer",
                      "Content-Length: \(Self.body.utf8.count)"] {
            #expect(lines.contains(field), "\(field)")
        }
        #expect(lines.contains { $0.hasPrefix("Date: ") && $0.hasSuffix(" GMT") })
        #expect(lines.contains { $0.hasPrefix("X-Request-Id: " + StaticRequestID.prefixDigits) })
        #expect(try Self.passedOn(channel).isEmpty)
        #expect(MetricsExposition.text(metrics)
            .contains(#"issuer_http_requests_total{route="/oauth2/jwks.json",method="GET",status="200"} 1"#))
    }

    /// The connection keeps the instruments it counted in; each answer still counts once, in the
    /// label set of its own status, and gets an id of its own.
    @Test("every answer on a connection is counted by its status, with a request id of its own")
    func countsEachAnswer() throws {
        let metrics = ServerMetrics()
        let channel = try Self.channel(metrics: metrics)
        let conditional = "GET /oauth2/jwks.json HTTP/1.1\r\nHost: x\r\nIf-None-Match: \"v1\"\r\n\r\n"
        try Self.write(channel, Self.get + Self.get + conditional)
        try Self.write(channel, Self.get)
        let ids = try Self.written(channel).components(separatedBy: "\r\n").filter { $0.hasPrefix("X-Request-Id: ") }
            .map { $0.dropFirst("X-Request-Id: ".count) }
        #expect(ids.count == 4 && Set(ids).count == 4, "\(ids)")
        #expect(ids.allSatisfy { $0.count == 32 && $0.allSatisfy(\.isHexDigit) && $0.lowercased() == $0 })
        let text = MetricsExposition.text(metrics)
        #expect(text.contains(#"issuer_http_requests_total{route="/oauth2/jwks.json",method="GET",status="200"} 3"#))
        #expect(text.contains(#"issuer_http_requests_total{route="/oauth2/jwks.json",method="GET",status="304"} 1"#))
        #expect(text.contains(#"issuer_http_request_duration_seconds_count{route="/oauth2/jwks.json",method="GET",status="200"} 3"#))
    }

    @Test("If-None-Match is read: a match is a 304 with no body and no Content-Length")
    func conditional() throws {
        let channel = try Self.channel()
        try Self.write(channel, "GET /oauth2/jwks.json HTTP/1.1\r\nHost: x\r\nIf-None-Match: \"v1\"\r\n\r\n")
        let answer = try Self.written(channel)
        #expect(answer.hasPrefix("HTTP/1.1 304 Not Modified\r\n") && answer.hasSuffix("\r\n\r\n"))
        #expect(answer.contains("ETag: \"v1\"\r\n") && !answer.contains("Content-Length"))
    }

    /// The first other request is passed on with everything after it, and the handler leaves.
    @Test("pipelined GETs in one read are answered in order, then the rest goes to the decoder")
    func handsOver() throws {
        let channel = try Self.channel()
        let rest = "POST /oauth2/token HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n" + Self.get
        try Self.write(channel, Self.get + Self.get + rest)
        #expect(try Self.written(channel).components(separatedBy: "HTTP/1.1 200 OK").count == 3, "two answers")
        #expect(try Self.passedOn(channel) == rest, "the rest, as it came")
        #expect(throws: (any Error).self) { try channel.pipeline.syncOperations.handler(type: ReadyAnswerHandler.self) }
        try Self.write(channel, Self.get)
        #expect(try Self.passedOn(channel) == Self.get, "the decoder's connection now")
        #expect(try Self.written(channel).isEmpty)
    }

    @Test("other paths, a request not complete yet, and a closing request are passed on", arguments: [
        "GET /oauth2/token HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET /oauth2/jwks.json HTTP/1.1\r\nHost: x\r\n",
        "GET /oauth2/jwks.json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    ])
    func passes(_ request: String) throws {
        let channel = try Self.channel()
        try Self.write(channel, request)
        #expect(try Self.passedOn(channel) == request)
        #expect(try Self.written(channel).isEmpty)
    }

    @Test("while the channel is not writable the bytes go to the decoder, whose router waits for the client")
    func notWritable() throws {
        let channel = try Self.channel()
        channel.isWritable = false
        try Self.write(channel, Self.get)
        #expect(try Self.passedOn(channel) == Self.get)
        #expect(try Self.written(channel).isEmpty)
    }

    /// A connection that only fetches documents is closed the limit after its last answer, not after it opened.
    @Test("the read deadline learns of each answer")
    func readDeadline() throws {
        let limit = TimeAmount.seconds(30)
        let channel = EmbeddedChannel()
        let deadline = RequestReadTimeoutHandler(limit: limit)
        try channel.pipeline.syncOperations.addHandlers([
            ReadyAnswerHandler(routes: Self.routes(), metrics: ServerMetrics(), deadline: deadline),
            ByteToMessageHandler(HTTPRequestDecoder()),
            deadline,
        ])
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8080)).wait()
        for _ in 0..<3 {
            channel.embeddedEventLoop.advanceTime(by: .seconds(20))
            try Self.write(channel, Self.get)
            #expect(channel.isActive)
            #expect(try Self.written(channel).hasPrefix("HTTP/1.1 200 OK"))
        }
        channel.embeddedEventLoop.advanceTime(by: limit - .seconds(1))
        #expect(channel.isActive, "60 s after it opened, 29 s after its last answer")
        channel.embeddedEventLoop.advanceTime(by: .seconds(2))
        #expect(!channel.isActive, "idle for the limit: closed")
    }
}

/// The connection's handlers as `IssuerHTTP1Channel` lays them out: the ready answers come first,
/// before NIO's decoder, and leave the connection to it at the first other request.
@Suite("HTTP/1 connection layout")
struct IssuerHTTP1ChannelLayoutTests {
    @Test("ready answers sit before the decoder, and the static routes' handler after it still answers once they leave")
    func layout() throws {
        let channel = EmbeddedChannel()
        let server = IssuerHTTP1Channel(
            responder: { _, _, _ in }, readTimeout: .seconds(30), staticRoutes: ReadyAnswerHandlerTests.routes(), metrics: ServerMetrics())
        _ = try server.setup(channel: channel, logger: Logger(label: "test")).wait()
        #expect(throws: Never.self) { try channel.pipeline.syncOperations.handler(type: ReadyAnswerHandler.self) }
        #expect(throws: Never.self) { try channel.pipeline.syncOperations.handler(type: StaticRouteHandler.self) }
        try channel.writeInbound(ByteBuffer(string: ReadyAnswerHandlerTests.get))
        // A plain ByteBuffer: NIO's encoder writes IOData, so this answer never went through it.
        let answer = try #require(try channel.readOutbound(as: ByteBuffer.self))
        #expect(String(buffer: answer).hasPrefix("HTTP/1.1 200 OK\r\n"), "bytes written straight to the socket")
    }
}
