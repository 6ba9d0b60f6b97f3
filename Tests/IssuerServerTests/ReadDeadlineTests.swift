import HTTPTypes
@testable import IssuerServer
import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing

/// the request-read deadline as the connection's handlers keep it (docs/reference.md, "Faults and bad input"), on a virtual clock:
/// the client owes a complete request within the limit of the connection opening and of each
/// answer, and owes nothing while the server works.
@Suite("Request-read deadline")
struct ReadDeadlineTests {
    static let limit = TimeAmount.seconds(30)

    /// A connected channel with the read deadline and the static routes, as the server has them.
    static func connection() throws -> EmbeddedChannel {
        let routes = StaticRoutes(entries: [
            "/oauth2/jwks.json": StaticRoutes.Entry(route: "/oauth2/jwks.json") { _ in
                EncodedAnswer(StaticAnswer(status: .ok, headers: [.contentType: "application/json"], body: ByteBuffer(string: "{}")))
            },
        ])
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandlers([
            RequestReadTimeoutHandler(limit: limit),
            StaticRouteHandler(routes: routes, metrics: ServerMetrics()),
        ])
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8080)).wait()
        return channel
    }

    static func request(_ channel: EmbeddedChannel, _ method: HTTPMethod, _ path: String) throws {
        try channel.writeInbound(HTTPServerRequestPart.head(HTTPRequestHead(version: .http1_1, method: method, uri: path)))
        try channel.writeInbound(HTTPServerRequestPart.end(nil))
    }

    static func answer(_ channel: EmbeddedChannel) throws {
        try channel.writeOutbound(HTTPServerResponsePart.head(HTTPResponseHead(version: .http1_1, status: .ok)))
        try channel.writeOutbound(HTTPServerResponsePart.end(nil))
    }

    @Test("a connection that sends nothing is closed at the limit")
    func silent() throws {
        let channel = try Self.connection()
        channel.embeddedEventLoop.advanceTime(by: Self.limit - .seconds(1))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .seconds(2))
        #expect(!channel.isActive)
    }

    @Test("after a static answer (written before the request's end is read) an idle connection is still closed")
    func idleAfterStaticAnswer() throws {
        let channel = try Self.connection()
        try Self.request(channel, .GET, "/oauth2/jwks.json")
        #expect(try channel.readInbound(as: HTTPServerRequestPart.self) == nil, "answered before the router")
        channel.embeddedEventLoop.advanceTime(by: Self.limit + .seconds(1))
        #expect(!channel.isActive, "idle after its answer: closed")
    }

    @Test("an answer written before its request's end (an error about an unread body) does not stop the clock")
    func answerBeforeEnd() throws {
        let channel = try Self.connection()
        try channel.writeInbound(HTTPServerRequestPart.head(HTTPRequestHead(version: .http1_1, method: .POST, uri: "/x")))
        try Self.answer(channel)
        try channel.writeInbound(HTTPServerRequestPart.end(nil))
        channel.embeddedEventLoop.advanceTime(by: Self.limit + .seconds(1))
        #expect(!channel.isActive)
    }

    @Test("while the server works on a request the clock waits, however long; it restarts at the answer")
    func serverWorking() throws {
        let channel = try Self.connection()
        try Self.request(channel, .POST, "/oauth2/token")
        channel.embeddedEventLoop.advanceTime(by: Self.limit * 3)
        #expect(channel.isActive)
        try Self.answer(channel)
        channel.embeddedEventLoop.advanceTime(by: Self.limit - .seconds(1))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .seconds(2))
        #expect(!channel.isActive)
    }

    @Test("two pipelined requests: after the first answer the second is still the server's work")
    func pipelined() throws {
        let channel = try Self.connection()
        try Self.request(channel, .POST, "/oauth2/token")
        try Self.request(channel, .POST, "/oauth2/token")
        try Self.answer(channel)
        channel.embeddedEventLoop.advanceTime(by: Self.limit * 2)
        #expect(channel.isActive)
        try Self.answer(channel)
        channel.embeddedEventLoop.advanceTime(by: Self.limit + .seconds(1))
        #expect(!channel.isActive)
    }

    @Test("a client that does not read its answers gets no more static answers: the router takes them, with backpressure")
    func notWritable() throws {
        let channel = try Self.connection()
        channel.isWritable = false
        try Self.request(channel, .GET, "/oauth2/jwks.json")
        #expect(try channel.readInbound(as: HTTPServerRequestPart.self) != nil, "passed on to the router")
        #expect(try channel.readOutbound(as: HTTPServerResponsePart.self) == nil)
    }
}
