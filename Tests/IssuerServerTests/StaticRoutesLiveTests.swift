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
}
