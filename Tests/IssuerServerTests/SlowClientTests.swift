#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Hummingbird
import HummingbirdTesting
import IssuerCore
@testable import IssuerServer
import Testing
import TestSupport

@Suite("Slow clients cannot hold the server (reference: Faults and bad input)")
struct SlowClientTests {
    /// A live server whose request-read limit is 1 s, on a port the body gets.
    static func withServer(_ body: @escaping @Sendable (Int) async throws -> Void) async throws {
        try await withIssuer { fixture in
            var dependencies = fixture.dependencies
            dependencies.requestReadTimeout = .seconds(1)
            let app = buildApplication(dependencies)
            try await app.test(.live) { client in try await body(try #require(client.port)) }
        }
    }

    @Test("a body trickled one byte at a time is cut off at the request-read limit")
    func trickledBody() async throws {
        try await Self.withServer { port in
            let body = String(repeating: "a", count: 200)
            let head = "POST /oauth2/token HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
            // One byte every 200 ms would keep an idle timeout from ever firing.
            let open = await TrickleClient.secondsUntilClosed(port: port, head: head, body: body, interval: 0.2, giveUpAfter: 8)
            let seconds = try #require(open, "the server kept a trickling connection open for 8 s")
            #expect(seconds < 5)
        }
    }

    @Test("static GETs keep their connection open past the limit, as the server's pipeline is laid out; idle, it is closed")
    func staticAnswersMoveTheDeadline() async throws {
        try await Self.withServer { port in
            let outcome = try await Offload.run { () -> (staticAnswers: Int, idleSeconds: Double) in
                let fd = try #require(LoopbackSocket.connect(port: port))
                defer { close(fd) }
                var pending: [UInt8] = []
                var staticAnswers = 0
                // 8 GETs 300 ms apart: 2.4 s on one connection, more than twice the 1 s limit.
                for _ in 0..<8 {
                    _ = LoopbackSocket.sendAll(fd, "GET /oauth2/jwks.json HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8)
                    guard let answer = RawHTTPAnswer.read(fd, pending: &pending), answer.statusLine == "HTTP/1.1 200 OK" else { break }
                    if answer.field("X-Request-Id")?.hasPrefix(StaticRequestID.prefixDigits) == true { staticAnswers += 1 }
                    usleep(300_000)
                }
                // Then idle: the read returns when the server closes, or after 5 s.
                let start = ContinuousClock.now
                _ = LoopbackSocket.receive(fd, milliseconds: 5000) { _ in false }
                let idle = ContinuousClock.now - start
                return (staticAnswers, Double(idle.components.seconds) + Double(idle.components.attoseconds) / 1e18)
            }
            #expect(outcome.staticAnswers == 8, "every GET answered, each before the router")
            #expect(outcome.idleSeconds < 3, "closed about a second after its last answer")
        }
    }

    @Test("a head that never ends is cut off too, and a prompt client is still served")
    func trickledHead() async throws {
        try await Self.withServer { port in
            let open = await TrickleClient.secondsUntilClosed(
                port: port, head: "GET /healthz HTTP/1.1\r\n", body: String(repeating: "X-A: b\r\n", count: 50),
                interval: 0.2, giveUpAfter: 8)
            let seconds = try #require(open, "the server kept a trickling connection open for 8 s")
            #expect(seconds < 5)
            // A new connection, since the test client's own one sat idle past the limit meanwhile.
            #expect(await TestHTTP.status(port: port, path: "/healthz") == 200)
        }
    }
}
