import IssuerCore
import Testing

@Suite("Rate limits and trusted proxy ranges")
struct NetworkSettingsTests {
    @Test("rate limits parse", arguments: [
        ("20/s burst 40", 20.0, 40),
        ("5/s", 5.0, 5),
        ("600/m burst 10", 10.0, 10),
        ("3600/h burst 2", 1.0, 2),
    ])
    func rateLimit(text: String, perSecond: Double, burst: Int) {
        #expect(RateLimit(text) == RateLimit(perSecond: perSecond, burst: burst))
    }

    @Test("malformed rate limits are refused", arguments: ["", "20", "20/d", "x/s", "0/s", "20/s burst", "20/s burst 0", "20/s bursts 4"])
    func badRateLimit(text: String) {
        #expect(RateLimit(text) == nil)
    }

    @Test("CIDR ranges contain what they should")
    func cidr() throws {
        let v4 = try #require(IPAddressRange(cidr: "10.1.0.0/16"))
        #expect(v4.contains("10.1.200.3"))
        #expect(!v4.contains("10.2.0.1"))
        #expect(v4.contains("::ffff:10.1.0.9"), "IPv4-mapped IPv6 matches an IPv4 range")
        #expect(!v4.contains("not an address"))
        let v6 = try #require(IPAddressRange(cidr: "fd00::/8"))
        #expect(v6.contains("fd12:3456::1"))
        #expect(!v6.contains("fe80::1"))
        let host = try #require(IPAddressRange(cidr: "127.0.0.1"))
        #expect(host.prefixLength == 32)
        #expect(!host.contains("127.0.0.2"))
        #expect(IPAddressRange(cidr: "10.0.0.0/33") == nil)
        #expect(IPAddressRange(cidr: "10.0.0/8") == nil)
        #expect(IPAddressRange(cidr: "10.1.2.3/8")?.description == "10.0.0.0/8")
    }
}
