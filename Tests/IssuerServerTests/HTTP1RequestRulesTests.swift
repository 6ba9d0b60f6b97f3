#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Hummingbird
import HummingbirdTesting
@testable import IssuerServer
import Testing
import TestSupport

/// RFC 9112's rules that HTTPTypes cannot carry, over a real socket (reference: Faults and bad
/// input): `Host` (§3.2) and the end of an HTTP/1.0 connection (§9.3).
@Suite("HTTP/1 request rules")
struct HTTP1RequestRulesTests {
    @Test("RFC 9112 §3.2: an HTTP/1.1 request without Host, or any with two, is a 400 and the connection closes", arguments: [
        "GET /oauth2/jwks.json HTTP/1.1\r\n\r\n",
        "GET /oauth2/jwks.json HTTP/1.1\r\nHost: localhost\r\nHost: evil.example\r\n\r\n",
        "POST /oauth2/token HTTP/1.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 0\r\n\r\n",
        "GET /userinfo HTTP/1.0\r\nHost: a\r\nHost: b\r\n\r\n",
        "GET /userinfo HTTP/1.1\r\nHost: a, b\r\n\r\n",
    ])
    func hostRefused(request: String) async throws {
        try await withLiveIssuer { port in
            let (answers, closed) = try await Offload.run { try Self.exchange(port: port, request, expecting: 1) }
            #expect(answers.first?.statusLine == "HTTP/1.1 400 Bad Request")
            #expect(answers.first?.field("Connection") == "close")
            #expect(answers.first.map { String(decoding: $0.body, as: UTF8.self) }?.contains("\"error\":\"invalid_request\"") == true)
            #expect(closed)
        }
    }

    @Test("RFC 9112 §3.2: an empty Host field is a Host field")
    func emptyHostAccepted() async throws {
        try await withLiveIssuer { port in
            let (answers, _) = try await Offload.run { try Self.exchange(port: port, "GET /oauth2/jwks.json HTTP/1.1\r\nHost:\r\n\r\n", expecting: 1, waiting: 200) }
            #expect(answers.first?.statusLine == "HTTP/1.1 200 OK")
        }
    }

    @Test("a refusal keeps its place after a pipelined request answered before it, and nothing after it is answered")
    func refusalInOrder() async throws {
        try await withLiveIssuer { port in
            let requests = "GET /oauth2/jwks.json HTTP/1.1\r\nHost: localhost\r\n\r\n"
                + "GET /oauth2/jwks.json HTTP/1.1\r\n\r\n"
                + "GET /oauth2/jwks.json HTTP/1.1\r\nHost: localhost\r\n\r\n"
            let (answers, closed) = try await Offload.run { try Self.exchange(port: port, requests, expecting: 3) }
            #expect(answers.map(\.statusLine) == ["HTTP/1.1 200 OK", "HTTP/1.1 400 Bad Request"])
            #expect(closed)
        }
    }

    @Test("RFC 9112 §9.3: HTTP/1.0 without keep-alive is answered and its connection closed, not held to the read deadline")
    func http10Closes() async throws {
        try await withLiveIssuer { port in
            for path in ["/oauth2/jwks.json", "/.well-known/openid-configuration", "/healthz-not-here"] {
                let (answers, closed) = try await Offload.run { try Self.exchange(port: port, "GET \(path) HTTP/1.0\r\n\r\n", expecting: 1) }
                #expect(answers.count == 1, "\(path)")
                #expect(answers.first?.field("Connection") == "close", "\(path)")
                #expect(closed, "\(path)")
            }
        }
    }

    @Test("HTTP/1.0 with keep-alive, and HTTP/1.1, keep their connection for the next request")
    func keepAliveStaysOpen() async throws {
        try await withLiveIssuer { port in
            for request in ["GET /oauth2/jwks.json HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
                            "GET /oauth2/jwks.json HTTP/1.1\r\nHost: localhost\r\n\r\n"] {
                let (answers, closed) = try await Offload.run { try Self.exchange(port: port, request + request, expecting: 2, waiting: 500) }
                #expect(answers.map(\.statusLine) == ["HTTP/1.1 200 OK", "HTTP/1.1 200 OK"], "\(request)")
                #expect(!closed, "\(request)")
            }
        }
    }

    private func withLiveIssuer(_ body: @escaping @Sendable (Int) async throws -> Void) async throws {
        let pool = try await TestCluster.freshPool(size: 1)
        try await OperationsTestApp.with(pool: pool, environment: [:]) { dependencies in
            try await buildApplication(dependencies).test(.live) { client in
                try await body(try #require(client.port))
            }
        }
    }

    /// Writes `requests` at once, reads up to `expecting` answers, then whether the server closed
    /// the connection within `waiting` milliseconds (the read deadline is 30 s, so a connection
    /// held open is still open then).
    static func exchange(port: Int, _ requests: String, expecting: Int, waiting: Int32 = 10_000) throws -> (answers: [RawHTTPAnswer], closed: Bool) {
        let fd = try #require(LoopbackSocket.connect(port: port))
        defer { close(fd) }
        _ = LoopbackSocket.sendAll(fd, requests.utf8)
        var answers: [RawHTTPAnswer] = []
        var pending: [UInt8] = []
        while answers.count < expecting, let answer = RawHTTPAnswer.read(fd, pending: &pending) {
            answers.append(answer)
        }
        guard pending.isEmpty else { return (answers, false) }
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, waiting) > 0 else { return (answers, false) }
        var byte: UInt8 = 0
        return (answers, recv(fd, &byte, 1, 0) <= 0)
    }
}
