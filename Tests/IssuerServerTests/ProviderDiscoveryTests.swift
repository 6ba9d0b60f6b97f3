import Foundation
import HummingbirdTesting
import IssuerCore
@testable import IssuerServer
import Logging
import Synchronization
import Testing
import TestSupport

/// What a provider's discovery document may say (reference: Google and other OpenID providers):
/// its endpoints are `https` unless the operator configured the provider on loopback, and a fetch
/// that fails keeps its reason in the log line and the metric.
@Suite("What a discovery document may say", .timeLimit(.minutes(10)))
struct ProviderDiscoveryTests {
    static let issuer = "https://corp.example"
    static let discoveryURL = URL(string: issuer + "/.well-known/openid-configuration")!

    /// Serves `documents` by URL, as if fetched from their https hosts; everything else goes to
    /// `otherwise`.
    struct DocumentFetcher: JWKSFetcher {
        let documents: [URL: Data]
        let otherwise: any JWKSFetcher

        func fetchJWKS(from url: URL) async throws -> JWKSDocument {
            if let body = documents[url] { return JWKSDocument(body: body, maxAge: 3600) }
            return try await otherwise.fetchJWKS(from: url)
        }
    }

    /// An issuer with the provider `corp` (kind oidc, hosted flow and native sign-in) at `issuer`,
    /// whose discovery document is `document` when given (else fetched over HTTP), the fake
    /// provider on loopback, and the issuer's log lines.
    static func withCorp(
        issuer: String = Self.issuer, document: (@Sendable (FakeGoogleServer) -> Data)?,
        _ body: @escaping @Sendable (IssuerTestFixture, FakeGoogleServer, any TestClientProtocol, @Sendable () -> [String]) async throws -> Void
    ) async throws {
        let clock = ManualClock(Date())
        try await FakeGoogleServer.with(clock: clock) { provider in
            let file = try FakeGoogleServer.providersFile([[
                "id": "corp", "kind": "oidc", "issuer": issuer, "client_id": "issuer-at-corp",
                "client_secret": FakeGoogleServer.clientSecret, "native_audiences": [FakeGoogleServer.webClientID],
            ]])
            defer { TestDirectories.remove(file) }
            try await withIssuer(environment: ["ISSUER_PROVIDERS_FILE": file.path], clock: clock) { fixture in
                let lines = Mutex<[String]>([])
                var dependencies = ProviderIssuer.overHTTP(fixture)
                if let document {
                    dependencies.jwksFetcher = DocumentFetcher(
                        documents: [URL(string: issuer + "/.well-known/openid-configuration")!: document(provider)],
                        otherwise: dependencies.jwksFetcher)
                }
                dependencies.logger = Logger(label: "issuer") { label in
                    JSONLogHandler(label: label) { line in lines.withLock { $0.append(line) } }
                }
                try await buildApplication(dependencies).test(.router) { client in
                    try await body(fixture, provider, client, { lines.withLock { $0 } })
                }
            }
        }
    }

    /// A native sign-in with a token the fake signed for `corp`.
    static func exchange(_ client: any TestClientProtocol, _ provider: FakeGoogleServer, issuer: String) async throws -> TestResponse {
        try await client.postJSON("/auth/corp/exchange", [
            "id_token": try provider.idToken(subject: "corp-user", issuer: issuer, azp: nil), "client_id": "clanboards-mobile",
        ])
    }

    /// `issuer_jwks_fetch_failures_total` for `corp` and `reason`.
    static func failures(_ fixture: IssuerTestFixture, reason: String) -> Double? {
        MetricsExposition.value(fixture.metrics, "issuer_jwks_fetch_failures_total", labels: [#"provider="corp""#, #"reason="\#(reason)""#])
    }

    @Test("an https provider's document naming the fake's loopback http endpoints: refused; no secret, verifier or key fetch goes there")
    func loopbackEndpointsRefused() async throws {
        try await Self.withCorp(document: { provider in
            try! JSONSerialization.data(withJSONObject: [
                "issuer": Self.issuer, "jwks_uri": provider.jwksURI,
                "authorization_endpoint": provider.issuer + "/o/oauth2/v2/auth", "token_endpoint": provider.issuer + "/token",
            ])
        }) { fixture, provider, client, logged in
            let authorize = try await client.get(HostedFlow.authorizeQuery())
            let location = authorize.headers[.location] ?? ""
            #expect(!location.hasPrefix(provider.issuer), "the browser is not sent where the document pointed: \(location)")
            if location.hasPrefix(provider.issuer) {
                // Where the flow went before: the provider's code redeemed at the loopback endpoint.
                let request = HostedFlow.query(location)
                let code = provider.issueCode(subject: "corp-user", for: request)
                _ = try await client.get(
                    "/auth/corp/callback?code=\(RedirectURI.encode(code))&state=\(RedirectURI.encode(request["state"] ?? ""))")
            }
            #expect(provider.state.withLock { $0.tokenRequests }.isEmpty, "no client_secret or PKCE verifier posted to loopback")

            let exchange = try await Self.exchange(client, provider, issuer: Self.issuer)
            #expect(exchange.status == .serviceUnavailable, "\(exchange.json)")
            #expect(provider.state.withLock { $0.jwksFetches } == 0, "no key fetched from loopback")
            #expect(Self.failures(fixture, reason: "insecure_url") == 1)
            #expect(try await fixture.count("users") == 0)
            let warning = logged().first { $0.contains("discovery document fetch failed") }
            #expect(warning?.contains(#""reason":"insecure_url""#) == true, "\(logged())")
        }
    }

    @Test("a discovery document that fails keeps its reason in the log line and the metric's label", arguments: [
        ("another issuer", "issuer_mismatch"), ("not JSON", "not_json"), ("no jwks_uri", "incomplete"),
    ])
    func reasonKept(document: String, reason: String) async throws {
        try await Self.withCorp(document: { provider in
            switch document {
            case "another issuer": Data(#"{"issuer": "https://evil.example", "jwks_uri": "https://evil.example/keys"}"#.utf8)
            case "not JSON": Data("<html>maintenance</html>".utf8)
            default: Data(#"{"issuer": "\#(Self.issuer)"}"#.utf8)
            }
        }) { fixture, provider, client, logged in
            let exchange = try await Self.exchange(client, provider, issuer: Self.issuer)
            #expect(exchange.status == .serviceUnavailable)
            #expect(Self.failures(fixture, reason: reason) == 1)
            let lines = logged()
            #expect(lines.contains { $0.contains("discovery document fetch failed") && $0.contains(#""reason":"\#(reason)""#) }, "\(lines)")
            #expect(lines.contains { $0.contains("JWKS fetch failed") && $0.contains(#""reason":"\#(reason)""#) }, "\(lines)")
        }
    }

    @Test("a discovery document over the size cap is too_large, not unreachable")
    func tooLarge() async throws {
        // Announces a body over the 1 MiB cap: refused on the header, before any of it is read.
        let server = try ScriptedHTTPServer { _, send in
            _ = send("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2000000\r\nConnection: close\r\n\r\n{")
        }
        defer { server.stop() }
        let issuer = "http://127.0.0.1:\(server.port)"
        try await Self.withCorp(issuer: issuer, document: nil) { fixture, provider, client, logged in
            let exchange = try await Self.exchange(client, provider, issuer: issuer)
            #expect(exchange.status == .serviceUnavailable)
            #expect(server.requestedPaths == ["/.well-known/openid-configuration"])
            #expect(Self.failures(fixture, reason: "too_large") == 1)
            #expect(logged().contains { $0.contains("discovery document fetch failed") && $0.contains(#""reason":"too_large""#) })
        }
    }
}
