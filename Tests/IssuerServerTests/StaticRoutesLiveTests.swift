#if canImport(Glibc)
import Glibc
#endif
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import IssuerServer
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
                // Hummingbird's test client sends `Connection: keep-alive`, which the static
                // route answers; the request ids tell which answered.
                #expect(first.headers[HTTPField.Name("X-Request-Id")!]?.hasPrefix(StaticRequestID.prefixDigits) == true, "answered before the router")
                #expect(second.headers[HTTPField.Name("X-Request-Id")!]?.hasPrefix(StaticRequestID.prefixDigits) == false, "answered by the router")
                #expect(first.headers[.date] != nil && first.headers[.server] == "issuer")
                // Conditional requests are answered alike too.
                if let etag = first.headers[.eTag] {
                    let notModified = try await client.execute(uri: fast, method: .get, headers: [.ifNoneMatch: etag])
                    #expect(notModified.status == .notModified)
                }
                let metrics = try await client.execute(uri: "/metrics", method: .get)
                #expect(String(buffer: metrics.body).contains("route=\"\(fast)\",method=\"GET\",status=\"200\"} 2"), "both counted, under one route")
            }
        }
    }

    @Test("static answers and the router's alternate on one connection, in order, and the router's HEAD has no body")
    func sharedConnection() async throws {
        let pool = try await TestCluster.freshPool(size: 1)
        try await OperationsTestApp.with(pool: pool, environment: [:]) { dependencies in
            try await buildApplication(dependencies).test(.live) { client in
                let port = try #require(client.port)
                // GET is answered before the router (its request id says so), HEAD by the router
                // (RFC 9110 §9.3.2: the same fields, no content). First one request at a time,
                // then three written at once: the router's answer keeps its place between them.
                for pipelined in [false, true] {
                    let methods = pipelined ? ["GET", "HEAD", "GET"] : ["GET", "HEAD", "GET", "HEAD", "GET"]
                    let answers = try await Offload.run { try Self.exchange(port: port, methods: methods, pipelined: pipelined) }
                    try #require(answers.count == methods.count, "pipelined: \(pipelined)")
                    #expect(answers.allSatisfy { $0.statusLine == "HTTP/1.1 200 OK" })
                    let length = try #require(answers[0].field("Content-Length").flatMap(Int.init))
                    #expect(answers.allSatisfy { $0.field("Content-Length") == String(length) })
                    #expect(answers.map(\.body.count) == methods.map { $0 == "HEAD" ? 0 : length })
                    #expect(Set(answers.filter { !$0.body.isEmpty }.map(\.body)).count == 1, "the same JWKS each time")
                    let byStaticRoute = answers.map { $0.field("X-Request-Id")?.hasPrefix(StaticRequestID.prefixDigits) == true }
                    #expect(byStaticRoute[0] && !byStaticRoute[1], "GET before the router, HEAD by it")
                    if !pipelined { #expect(byStaticRoute == methods.map { $0 == "GET" }) }
                }
            }
        }
    }

    /// Sends a request for the JWKS with each method on one connection, all at once when
    /// `pipelined`, else each after the previous answer, and reads the answers in order.
    static func exchange(port: Int, methods: [String], pipelined: Bool) throws -> [RawHTTPAnswer] {
        let fd = try #require(LoopbackSocket.connect(port: port))
        defer { close(fd) }
        let requests = methods.map { "\($0) /oauth2/jwks.json HTTP/1.1\r\nHost: localhost\r\n\r\n" }
        if pipelined { _ = LoopbackSocket.sendAll(fd, requests.joined().utf8) }
        var answers: [RawHTTPAnswer] = []
        var pending: [UInt8] = []
        for (method, request) in zip(methods, requests) {
            if !pipelined { _ = LoopbackSocket.sendAll(fd, request.utf8) }
            guard let answer = RawHTTPAnswer.read(fd, pending: &pending, bodyless: method == "HEAD") else { break }
            answers.append(answer)
        }
        #expect(pending.isEmpty, "nothing follows the last answer")
        return answers
    }
}
