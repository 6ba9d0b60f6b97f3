#if canImport(Glibc)
import Glibc
#endif
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IssuerServer
import Testing
import TestSupport

/// The JWKS and discovery over a real socket: the event-loop answer (the exact path) and the
/// router's (a path the router also matches, `/oauth2/jwks.json/`) are the same answer.
@Suite("Static routes over a real connection")
struct StaticRoutesLiveTests {
    static let compared: [HTTPField.Name] = [.contentType, .cacheControl, .eTag, .accessControlAllowOrigin, .contentLength]

    @Test("the event loop's answer and the router's are the same bytes and headers", arguments: [
        ("/oauth2/jwks.json", "/oauth2/jwks.json/"),
        ("/.well-known/openid-configuration", "//.well-known/openid-configuration"),
        ("/oidc/oauth2/jwks.json", "/oidc/oauth2/jwks.json/"),
        ("/.well-known/oauth-authorization-server/oidc", "/.well-known/oauth-authorization-server/oidc/"),
    ])
    func sameAnswer(fast: String, routed: String) async throws {
        let prefixed = fast.contains("/oidc")
        let environment = prefixed ? ["ISSUER_URL": "http://localhost:8080/oidc"] : [:]
        let pool = try await TestCluster.freshPool(size: 1)
        try await OperationsTestApp.with(pool: pool, environment: environment) { dependencies in
            try await buildApplication(dependencies).test(.live) { client in
                let first = try await client.execute(uri: fast, method: .get)
                let second = try await client.execute(uri: routed, method: .get)
                #expect(first.status == .ok && second.status == .ok)
                #expect(first.body == second.body)
                for name in Self.compared {
                    #expect(first.headers[name] == second.headers[name], "\(name)")
                }
                #expect(first.headers[HTTPField.Name("X-Request-Id")!] != nil)
                #expect(first.headers[.date] != nil && first.headers[.server] == "issuer")
                // Conditional requests are answered alike too.
                if let etag = first.headers[.eTag] {
                    let notModified = try await client.execute(uri: fast, method: .get, headers: [.ifNoneMatch: etag])
                    #expect(notModified.status == .notModified)
                }
                let metrics = try await client.execute(uri: "/metrics", method: .get)
                #expect(String(buffer: metrics.body).contains("method=\"GET\",status=\"200\"} 2"), "both counted, under one route")
            }
        }
    }

    @Test("static answers and the router's alternate on one connection, in order, and the router's HEAD has no body")
    func sharedConnection() async throws {
        let pool = try await TestCluster.freshPool(size: 1)
        try await OperationsTestApp.with(pool: pool, environment: [:]) { dependencies in
            try await buildApplication(dependencies).test(.live) { client in
                let port = try #require(client.port)
                // GET is answered before the router, HEAD by the router (RFC 9110 §9.3.2: the
                // same fields, no content).
                let answers = try await Offload.run { try Self.exchange(port: port, methods: ["GET", "HEAD", "GET", "HEAD", "GET"]) }
                #expect(answers.map(\.status) == Array(repeating: "HTTP/1.1 200 OK", count: 5))
                let length = try #require(answers.first?.contentLength)
                #expect(answers.allSatisfy { $0.contentLength == length })
                #expect(answers.map(\.body.count) == [length, 0, length, 0, length])
                #expect(Set(answers.filter { !$0.body.isEmpty }.map(\.body)).count == 1, "the same JWKS each time")
            }
        }
    }

    /// Sends a request for the JWKS with each method in turn on one connection, reading each
    /// answer before the next request: its status line, its `Content-Length`, and as many body
    /// bytes as that says unless the method was HEAD. Bytes left over would start the next answer.
    static func exchange(port: Int, methods: [String]) throws -> [(status: String, contentLength: Int?, body: [UInt8])] {
        let fd = try #require(LoopbackSocket.connect(port: port))
        defer { close(fd) }
        var answers: [(status: String, contentLength: Int?, body: [UInt8])] = []
        var pending: [UInt8] = []
        let separator = Array("\r\n\r\n".utf8)
        func headEnd(_ bytes: [UInt8]) -> Int? {
            bytes.indices.dropLast(3).first { bytes[$0..<$0 + 4].elementsEqual(separator) }
        }
        for method in methods {
            _ = LoopbackSocket.sendAll(fd, "\(method) /oauth2/jwks.json HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8)
            let head = LoopbackSocket.receive(fd, milliseconds: 2000) { headEnd(pending + $0) != nil }
            pending += head
            let end = try #require(headEnd(pending), "no complete answer to \(method)")
            let lines = String(decoding: pending[..<end], as: UTF8.self).components(separatedBy: "\r\n")
            let length = lines.dropFirst().first { $0.lowercased().hasPrefix("content-length:") }
                .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) }
            pending.removeFirst(end + 4)
            let bodyLength = method == "HEAD" ? 0 : (length ?? 0)
            let rest = LoopbackSocket.receive(fd, milliseconds: 2000) { pending.count + $0.count >= bodyLength }
            pending += rest
            let body = Array(pending.prefix(bodyLength))
            pending.removeFirst(body.count)
            answers.append((status: lines[0], contentLength: length, body: body))
        }
        return answers
    }
}
