import Foundation
import IssuerCore
import Testing
import TestSupport

@Suite("A provider's discovery document (reference: Google and other OpenID providers)")
struct ProviderEndpointsTests {
    let clock = ManualClock()
    let settings = ProviderSettings(
        id: "corp", kind: .oidc, issuer: "https://id.example.com", clientID: "issuer", clientSecret: Secret("s"))

    var document: Data {
        Data("""
            {"issuer": "https://id.example.com", "jwks_uri": "https://id.example.com/keys",
             "authorization_endpoint": "https://id.example.com/authorize", "token_endpoint": "https://id.example.com/token"}
            """.utf8)
    }

    @Test("nothing cached and the provider down: asked again after 1 s, then 2 s, not once per request; used when back")
    func coldBackoff() async throws {
        let fetcher = StubJWKSFetcher(body: document)
        fetcher.setFailing(true)
        let endpoints = ProviderEndpoints(settings: settings, fetcher: fetcher, clock: clock)
        for (pause, fetches) in [(1.0, 1), (2.0, 2)] {
            for _ in 0..<4 {
                await #expect(throws: ProviderEndpoints.Unavailable.self) { try await endpoints.resolve() }
                clock.advance(by: pause / 4)
            }
            #expect(fetcher.fetchCount == fetches)
        }
        fetcher.setFailing(false)
        let resolved = try await endpoints.resolve()
        #expect(resolved.jwksURI == URL(string: "https://id.example.com/keys"))
        #expect(resolved.tokenEndpoint == URL(string: "https://id.example.com/token"))
        #expect(fetcher.fetchCount == 3)
        _ = try await endpoints.resolve()
        #expect(fetcher.fetchCount == 3, "cached")
    }

    @Test("a document naming another issuer is a failed fetch, paused like any other")
    func wrongIssuer() async throws {
        let fetcher = StubJWKSFetcher(body: Data(#"{"issuer": "https://evil.example", "jwks_uri": "https://evil.example/keys"}"#.utf8))
        let endpoints = ProviderEndpoints(settings: settings, fetcher: fetcher, clock: clock)
        for _ in 0..<3 {
            await #expect(throws: ProviderEndpoints.Unavailable.self) { try await endpoints.resolve() }
        }
        #expect(fetcher.fetchCount == 1)
        clock.advance(by: 1)
        await #expect(throws: ProviderEndpoints.Unavailable.self) { try await endpoints.resolve() }
        #expect(fetcher.fetchCount == 2)
    }

    /// A discovery document naming `endpoint` as `name`, for a provider with `issuer`.
    static func document(issuer: String, _ name: String, _ endpoint: String) -> Data {
        var members = [
            "issuer": issuer, "jwks_uri": "https://id.example.com/keys",
            "authorization_endpoint": "https://id.example.com/authorize", "token_endpoint": "https://id.example.com/token",
        ]
        members[name] = endpoint
        return try! JSONSerialization.data(withJSONObject: members)
    }

    @Test("an https provider's document naming plain http to loopback (or anywhere) is refused, whatever the endpoint", arguments: [
        "jwks_uri", "authorization_endpoint", "token_endpoint",
    ], ["http://127.0.0.1:8080/x", "http://localhost/x", "http://[::1]:9/x", "http://127.9.9.9/x", "http://id.example.com/x"])
    func documentCannotPointAtLoopback(name: String, endpoint: String) async throws {
        let fetcher = StubJWKSFetcher(body: Self.document(issuer: settings.issuer, name, endpoint))
        let endpoints = ProviderEndpoints(settings: settings, fetcher: fetcher, clock: clock)
        await #expect {
            try await endpoints.resolve()
        } throws: { error in
            (error as? ProviderEndpoints.Unavailable)?.reason == .insecureURL
        }
    }

    @Test("a provider configured on loopback (development) may name loopback http endpoints; never a name under .localhost", arguments: [
        ("http://127.0.0.1:8080/token", true), ("http://localhost:8080/token", true), ("http://[::1]/token", true),
        ("http://evil.localhost:8080/token", false), ("http://10.0.0.1/token", false), ("https://id.example.com/token", true),
    ])
    func loopbackIssuer(endpoint: String, accepted: Bool) async throws {
        let issuer = "http://127.0.0.1:8080"
        let settings = ProviderSettings(id: "dev", kind: .oidc, issuer: issuer, clientID: "issuer", clientSecret: Secret("s"))
        let fetcher = StubJWKSFetcher(body: Self.document(issuer: issuer, "token_endpoint", endpoint))
        let resolved = try? await ProviderEndpoints(settings: settings, fetcher: fetcher, clock: clock).resolve()
        #expect((resolved?.tokenEndpoint == URL(string: endpoint)) == accepted)
    }

    @Test("a failed fetch keeps its reason, for the callers that wait out the pause too", arguments: [
        (#"{"issuer": "https://evil.example", "jwks_uri": "https://evil.example/keys"}"#, RemoteFetchFailure.issuerMismatch),
        ("<html>maintenance</html>", .notJSON),
        (#"["https://id.example.com"]"#, .notJSON),
        (#"{"issuer": "https://id.example.com"}"#, .incomplete),
    ])
    func reasonKept(body: String, reason: RemoteFetchFailure) async throws {
        let endpoints = ProviderEndpoints(settings: settings, fetcher: StubJWKSFetcher(body: Data(body.utf8)), clock: clock)
        for _ in 0..<2 {
            await #expect {
                try await endpoints.resolve()
            } throws: { error in
                (error as? ProviderEndpoints.Unavailable)?.reason == reason && RemoteFetchFailure(of: error) == reason
            }
        }
    }

    @Test("the fetcher's reason (too large, timed out, a redirect…) is the document's", arguments: RemoteFetchFailure.allCases)
    func fetcherReasonKept(reason: RemoteFetchFailure) async throws {
        let endpoints = ProviderEndpoints(settings: settings, fetcher: RefusingFetcher(reason: reason), clock: clock)
        await #expect {
            try await endpoints.resolve()
        } throws: { error in
            (error as? ProviderEndpoints.Unavailable)?.reason == reason
        }
    }
}

/// A fetcher whose every fetch fails for `reason`, as the HTTP fetcher's errors report theirs.
struct RefusingFetcher: JWKSFetcher {
    struct Refusal: RemoteFetchFailureReporting {
        let fetchFailure: RemoteFetchFailure
    }

    let reason: RemoteFetchFailure

    func fetchJWKS(from url: URL) async throws -> JWKSDocument {
        throw Refusal(fetchFailure: reason)
    }
}
