import Foundation
import IssuerCore
import Testing
import TestSupport

@Suite("Rate limiter (reference: Configuration, §7)")
struct RateLimiterTests {
    @Test("a burst, then the sustained rate, per client")
    func tokenBucket() {
        let clock = ManualClock()
        let limiter = RateLimiter(limit: RateLimit(perSecond: 2, burst: 4), clock: clock)
        for _ in 0..<4 { #expect(limiter.acquire(client: "192.0.2.1") == nil) }
        #expect(limiter.acquire(client: "192.0.2.1") == 1, "over the burst: wait about a second")
        #expect(limiter.acquire(client: "192.0.2.2") == nil, "another client has its own allowance")
        clock.advance(by: 0.5)
        #expect(limiter.acquire(client: "192.0.2.1") == nil, "0.5 s at 2/s refills one")
        #expect(limiter.acquire(client: "192.0.2.1") != nil)
        clock.advance(by: 60)
        for _ in 0..<4 { #expect(limiter.acquire(client: "192.0.2.1") == nil) }
        #expect(limiter.acquire(client: "192.0.2.1") != nil, "refills to the burst, not beyond")
    }

    @Test("memory stays bounded however many addresses are seen, and a recent client keeps its bucket")
    func boundedMemory() {
        let clock = ManualClock()
        let limiter = RateLimiter(limit: RateLimit(perSecond: 1, burst: 1), clock: clock, maximumClients: 10)
        #expect(limiter.acquire(client: "198.51.100.7") == nil)
        for i in 0..<3 { _ = limiter.acquire(client: "10.0.0.\(i)") }
        #expect(limiter.acquire(client: "198.51.100.7") != nil, "a client still tracked is still limited")
        for i in 0..<5000 { _ = limiter.acquire(client: "10.\(i / 65536).\(i / 256 % 256).\(i % 256)") }
        #expect(limiter.trackedClients <= 10)
    }

    @Test("IPv6 clients share one allowance per /64; IPv4-mapped addresses count as IPv4")
    func ipv6PerPrefix() {
        let limiter = RateLimiter(limit: RateLimit(perSecond: 1, burst: 2), clock: ManualClock())
        #expect(limiter.acquire(client: "2001:db8:1:2::1") == nil)
        #expect(limiter.acquire(client: "2001:db8:1:2:ffff:ffff:ffff:ffff") == nil)
        #expect(limiter.acquire(client: "2001:db8:1:2:abcd::9") != nil, "the third request of one /64 is over the burst")
        #expect(limiter.acquire(client: "2001:db8:1:3::1") == nil, "the next /64 is another client")
        #expect(limiter.acquire(client: "203.0.113.5") == nil)
        #expect(limiter.acquire(client: "::ffff:203.0.113.5") == nil)
        #expect(limiter.acquire(client: "::ffff:203.0.113.5") != nil, "the mapped form is the same IPv4 client")
    }

    @Test("the slowest accepted rate answers a Retry-After an Int holds")
    func slowestRate() throws {
        let limit = try #require(RateLimit("1/h burst 1"))
        let limiter = RateLimiter(limit: limit, clock: ManualClock())
        #expect(limiter.acquire(client: "192.0.2.9") == nil)
        #expect(limiter.acquire(client: "192.0.2.9") == 3600)
    }

    @Test("ISSUER_RATE_LIMIT syntax and bounds", arguments: [
        ("20/s burst 40", RateLimit(perSecond: 20, burst: 40)),
        ("600/m", RateLimit(perSecond: 10, burst: 600)),
        ("2/h burst 1", RateLimit(perSecond: 2.0 / 3600, burst: 1)),
        ("1e-300/s", nil),
        ("0.00001/s", nil),
        ("1e300/s", nil),
        ("5/s burst 99999999999", nil),
        ("5/s burst 0", nil),
        ("nan/s", nil),
        ("-1/s", nil),
        ("5/d", nil),
        ("5/s burst", nil),
        ("", nil),
    ] as [(String, RateLimit?)])
    func parsing(text: String, expected: RateLimit?) {
        #expect(RateLimit(text) == expected)
    }
}
