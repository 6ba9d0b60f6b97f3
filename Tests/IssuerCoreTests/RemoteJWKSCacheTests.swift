import Foundation
import IssuerCore
import JOSE
import Testing
import TestSupport

@Suite("Remote JWKS cache (reference: Faults and bad input)")
struct RemoteJWKSCacheTests {
    let apple: FakeAppleKeys
    let clock = ManualClock()
    let url = URL(string: "https://appleid.apple.com/auth/keys")!

    init() throws {
        apple = try FakeAppleKeys()
    }

    func cache(_ fetcher: StubJWKSFetcher) -> RemoteJWKSCache {
        RemoteJWKSCache(url: url, fetcher: fetcher, clock: clock)
    }

    @Test("many concurrent lookups share one fetch")
    func singleFlight() async throws {
        let fetcher = StubJWKSFetcher(serving: apple)
        fetcher.setDelay(.milliseconds(200))
        let cache = cache(fetcher)
        let kid = apple.currentKid
        let found = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<50 { group.addTask { (try? await cache.key(kid: kid)) != nil } }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(found == 50)
        #expect(fetcher.fetchCount == 1)
    }

    @Test("Cache-Control is honoured within 5 minutes and 24 hours", arguments: [
        (Optional(3600), 3600.0), (Optional(10), 300.0), (Optional(999_999), 86_400.0), (nil, 300.0),
    ] as [(Int?, Double)])
    func lifetimeBounds(maxAge: Int?, lifetime: Double) async throws {
        let fetcher = StubJWKSFetcher(serving: apple, maxAge: maxAge)
        let cache = cache(fetcher)
        let kid = apple.currentKid
        _ = try await cache.key(kid: kid)
        clock.advance(by: lifetime - 1)
        _ = try await cache.key(kid: kid)
        #expect(fetcher.fetchCount == 1, "still fresh")
        clock.advance(by: 2)
        _ = try await cache.key(kid: kid)
        #expect(fetcher.fetchCount == 2, "refetched once stale")
    }

    @Test("a kid missing while the refetch fails is unavailability, not an unknown key, inside the cooldown too; once a fetch works again, unknown is unknown")
    func unknownKidDuringOutage() async throws {
        let fetcher = StubJWKSFetcher(serving: apple)
        let cache = cache(fetcher)
        _ = try await cache.key(kid: apple.currentKid)
        clock.advance(by: 31)
        let rotated = try apple.rotate()
        fetcher.setFailing(true)
        for _ in 0..<2 {
            let error = await #expect(throws: RemoteJWKSError.self) { try await cache.key(kid: rotated) }
            guard case .unavailable = error else {
                Issue.record("a failed look is no verdict on the kid: \(String(describing: error))")
                return
            }
        }
        fetcher.setFailing(false)
        clock.advance(by: 31)
        #expect(try await cache.key(kid: rotated).algorithm == .rs256)
        await #expect(throws: RemoteJWKSError.unknownKey) { try await cache.key(kid: "made-up") }
    }

    @Test("an unknown kid refetches at once, but not twice within 30 s")
    func unknownKidRefetch() async throws {
        let fetcher = StubJWKSFetcher(serving: apple)
        let cache = cache(fetcher)
        _ = try await cache.key(kid: apple.currentKid)
        clock.advance(by: 31)
        let rotated = try apple.rotate()
        // Apple rotated: the new kid is found through one refetch.
        #expect(try await cache.key(kid: rotated).algorithm == .rs256)
        #expect(fetcher.fetchCount == 2)
        // Made-up kids inside the cooldown do not reach Apple.
        for _ in 0..<10 {
            await #expect(throws: RemoteJWKSError.unknownKey) { try await cache.key(kid: "made-up") }
        }
        #expect(fetcher.fetchCount == 2)
        clock.advance(by: 31)
        await #expect(throws: RemoteJWKSError.unknownKey) { try await cache.key(kid: "made-up") }
        #expect(fetcher.fetchCount == 3)
    }

    @Test("stale keys are served while the provider is down, up to 7 days")
    func staleWhileDown() async throws {
        let fetcher = StubJWKSFetcher(serving: apple, maxAge: 3600)
        let cache = cache(fetcher)
        let kid = apple.currentKid
        _ = try await cache.key(kid: kid)
        fetcher.setFailing(true)
        clock.advance(by: 2 * 86_400)
        #expect(try await cache.key(kid: kid).algorithm == .rs256)
        clock.advance(by: 6 * 86_400)
        await #expect(throws: RemoteJWKSError.self) { try await cache.key(kid: kid) }
        fetcher.setFailing(false)
        clock.advance(by: 31)
        #expect(try await cache.key(kid: kid).algorithm == .rs256, "recovers when the provider is back")
    }

    @Test("nothing cached and the provider down: unavailable")
    func downWithNothingCached() async throws {
        let fetcher = StubJWKSFetcher(serving: apple)
        fetcher.setFailing(true)
        let cache = cache(fetcher)
        let error = await #expect(throws: RemoteJWKSError.self) { try await cache.key(kid: apple.currentKid) }
        if case .unavailable = error {} else { Issue.record("expected unavailable, got \(String(describing: error))") }
    }

    @Test("nothing cached and the provider down: asked again after 1 s, 2 s, 4 s… at most every 30 s, not once per request")
    func coldBackoff() async throws {
        let fetcher = StubJWKSFetcher(serving: apple)
        fetcher.setFailing(true)
        let cache = cache(fetcher)
        var fetches = 0
        /// Asks four times over the next `seconds` (quarters, exact in a `Date`): only the first
        /// may reach the provider.
        func askDuring(_ seconds: Double, fetching: Bool) async {
            for _ in 0..<4 {
                let error = await #expect(throws: RemoteJWKSError.self) { try await cache.key(kid: apple.currentKid) }
                if case .unavailable = error {} else { Issue.record("expected unavailable, got \(String(describing: error))") }
                clock.advance(by: seconds / 4)
            }
            if fetching { fetches += 1 }
            #expect(fetcher.fetchCount == fetches)
        }
        for pause in [1.0, 2, 4, 8, 16, 30, 30] {
            await askDuring(pause, fetching: true)
        }
        // The pause stays at 30 s: a second short of it, the provider is not asked.
        await askDuring(29, fetching: true)
        await #expect(throws: RemoteJWKSError.self) { try await cache.key(kid: apple.currentKid) }
        #expect(fetcher.fetchCount == fetches)
        clock.advance(by: 1)
        fetcher.setFailing(false)
        #expect(try await cache.key(kid: apple.currentKid).algorithm == .rs256, "asked again when the pause is over")
        #expect(fetcher.fetchCount == fetches + 1)
    }

    @Test("malformed and non-RSA members are skipped, not fatal")
    func lenientMembers() async throws {
        let good = try JSONSerialization.jsonObject(with: apple.jwksJSON) as! [String: Any]
        var members = good["keys"] as! [[String: Any]]
        members.insert(["kty": "oct", "k": "c2VjcmV0", "kid": "hmac"], at: 0)
        members.insert(["kty": "EC", "crv": "P-256", "x": "AA", "y": "AA", "kid": "ec"], at: 0)
        members.insert(["kty": "RSA", "kid": "broken", "n": "!!", "e": "AQAB"], at: 0)
        let body = try JSONSerialization.data(withJSONObject: ["keys": members])
        let cache = cache(StubJWKSFetcher(body: body))
        #expect(try await cache.key(kid: apple.currentKid) == .rsa(apple.currentKey.key.publicKey))
        await #expect(throws: RemoteJWKSError.unknownKey) { try await cache.key(kid: "hmac") }
    }

    @Test("a failed fetch is counted and thrown with its reason, never only 'unavailable'", arguments: [
        ("<html>maintenance</html>", "not_json"), (#"{"keys": {}}"#, "not_json"), (#"{"keys": []}"#, "incomplete"),
    ])
    func failureReason(body: String, reason: String) async throws {
        let events = RecordingAccountEvents()
        let cache = RemoteJWKSCache(url: url, fetcher: StubJWKSFetcher(body: Data(body.utf8)), clock: clock, name: "apple", events: events)
        for _ in 0..<2 {
            let error = await #expect(throws: RemoteJWKSError.self) { try await cache.key(kid: apple.currentKid) }
            guard case .unavailable(let why) = error else { Issue.record("expected unavailable, got \(String(describing: error))"); continue }
            #expect(why.contains(reason), "the paused caller is told the last reason too: \(why)")
        }
        #expect(events.events == ["keys_fetched:apple:\(reason)"])
    }

    @Test("keys found through a discovery document that names another issuer: counted as issuer_mismatch")
    func discoveryReason() async throws {
        let events = RecordingAccountEvents()
        let settings = ProviderSettings(id: "corp", kind: .oidc, issuer: "https://id.example.com", nativeAudiences: ["a"])
        let discovery = StubJWKSFetcher(body: Data(#"{"issuer": "https://evil.example", "jwks_uri": "https://evil.example/keys"}"#.utf8))
        let endpoints = ProviderEndpoints(settings: settings, fetcher: discovery, clock: clock)
        let cache = RemoteJWKSCache(
            source: "the jwks_uri of corp", locate: { try await endpoints.resolve().jwksURI }, fetcher: StubJWKSFetcher(serving: apple),
            clock: clock, name: "corp", events: events)
        let error = await #expect(throws: RemoteJWKSError.self) { try await cache.key(kid: apple.currentKid) }
        guard case .unavailable(let why) = error else { Issue.record("expected unavailable, got \(String(describing: error))"); return }
        #expect(why.contains("issuer_mismatch") && why.contains("names another issuer"), "\(why)")
        #expect(events.events == ["keys_fetched:corp:issuer_mismatch"])
    }

    @Test("Cache-Control max-age parsing", arguments: [
        ("public, max-age=3600", Optional(3600)), ("max-age=\"60\"", Optional(60)), ("no-store", Optional(0)),
        ("private", nil), (nil, nil),
    ] as [(String?, Int?)])
    func cacheControl(header: String?, maxAge: Int?) {
        #expect(JWKSDocument.maxAge(fromCacheControl: header) == maxAge)
    }
}
