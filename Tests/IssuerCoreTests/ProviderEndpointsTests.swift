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
}
