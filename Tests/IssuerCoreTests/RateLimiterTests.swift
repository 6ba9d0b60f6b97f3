import Foundation
import IssuerCore
import Testing
import TestSupport

@Suite("Rate limiter (SPEC §2)")
struct RateLimiterTests {
    @Test("a burst, then the sustained rate, per client")
    func tokenBucket() {
        let clock = ManualClock()
        let limiter = RateLimiter(limit: RateLimit(perSecond: 2, burst: 4), clock: clock)
        for _ in 0..<4 { #expect(limiter.acquire(client: "a") == nil) }
        #expect(limiter.acquire(client: "a") == 1, "over the burst: wait about a second")
        #expect(limiter.acquire(client: "b") == nil, "another client has its own allowance")
        clock.advance(by: 0.5)
        #expect(limiter.acquire(client: "a") == nil, "0.5 s at 2/s refills one")
        #expect(limiter.acquire(client: "a") != nil)
        clock.advance(by: 60)
        for _ in 0..<4 { #expect(limiter.acquire(client: "a") == nil) }
        #expect(limiter.acquire(client: "a") != nil, "refills to the burst, not beyond")
    }

    @Test("idle clients are forgotten when too many are tracked")
    func boundedMemory() {
        let clock = ManualClock()
        let limiter = RateLimiter(limit: RateLimit(perSecond: 1, burst: 1), clock: clock, maximumClients: 10)
        for i in 0..<10 { _ = limiter.acquire(client: "c\(i)") }
        clock.advance(by: 5)
        _ = limiter.acquire(client: "new")
        // c0 was forgotten as idle, so it starts with a full bucket again; the test is that
        // nothing refuses it and memory did not grow without bound.
        #expect(limiter.acquire(client: "c0") == nil)
    }
}
