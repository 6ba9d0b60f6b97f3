import IssuerCore
@testable import IssuerServer
import NIOCore
import Testing

/// `X-Forwarded-For` resolution: believed only from a trusted proxy, read from the right, and
/// never answering a string the client chose that is not an address.
@Suite("X-Forwarded-For resolution")
struct ClientAddressTests {
    static let trusted = ["10.0.0.0/8", "192.168.0.0/16", "fd00::/8"].compactMap(IPAddressRange.init(cidr:))

    @Test("Client address", arguments: [
        // No header, no trusted proxies, or an untrusted peer: the peer.
        ("10.0.0.1", nil, "10.0.0.1"),
        ("203.0.113.9", "198.51.100.1", "203.0.113.9"),
        ("203.0.113.9", "10.0.0.2", "203.0.113.9"),
        // The rightmost hop that is not a trusted proxy.
        ("10.0.0.1", "198.51.100.1", "198.51.100.1"),
        ("10.0.0.1", "6.6.6.6, 198.51.100.1", "198.51.100.1"),
        ("10.0.0.1", "6.6.6.6, 198.51.100.1, 10.0.0.2, 192.168.1.1", "198.51.100.1"),
        ("10.0.0.1", "6.6.6.6,198.51.100.1", "198.51.100.1"),
        ("10.0.0.1", " \t198.51.100.1\t ", "198.51.100.1"),
        // Empty elements are nothing (RFC 9110 §5.6.1).
        ("10.0.0.1", "198.51.100.1, , ,", "198.51.100.1"),
        ("10.0.0.1", "", "10.0.0.1"),
        ("10.0.0.1", " , ", "10.0.0.1"),
        // Every hop trusted: the leftmost, which is itself a proxy's address.
        ("10.0.0.1", "192.168.0.7, 10.0.0.2", "192.168.0.7"),
        // Ports are dropped; IPv6 in brackets, with or without a port.
        ("10.0.0.1", "198.51.100.1:51234", "198.51.100.1"),
        ("10.0.0.1", "[2001:db8::1]:443", "2001:db8::1"),
        ("10.0.0.1", "[2001:db8::1]", "2001:db8::1"),
        ("10.0.0.1", "2001:db8::1", "2001:db8::1"),
        // One text per address: canonical IPv6, IPv4-mapped as IPv4.
        ("10.0.0.1", "2001:0DB8:0000:0000::0001", "2001:db8::1"),
        ("10.0.0.1", "::ffff:198.51.100.1", "198.51.100.1"),
        ("fd00::1", "198.51.100.1", "198.51.100.1"),
        ("10.0.0.1", "6.6.6.6, fd00::5", "6.6.6.6"),
        // A hop that is not an address ends the walk at the proxy that wrote it.
        ("10.0.0.1", "198.51.100.1, unknown", "10.0.0.1"),
        ("10.0.0.1", "garbage, 198.51.100.1", "198.51.100.1"),
        ("10.0.0.1", "1.2.3.0/24", "10.0.0.1"),
        ("10.0.0.1", "198.51.100.1/32", "10.0.0.1"),
        ("10.0.0.1", "fe80::1%eth0", "10.0.0.1"),
        ("10.0.0.1", "198.51.100.1:", "10.0.0.1"),
        ("10.0.0.1", "198.51.100.1:http", "10.0.0.1"),
        ("10.0.0.1", "198.51.100.1:1234567", "10.0.0.1"),
        ("10.0.0.1", "[2001:db8::1]x", "10.0.0.1"),
        ("10.0.0.1", "[198.51.100.1]", "10.0.0.1"),
        ("10.0.0.1", "[2001:db8::1", "10.0.0.1"),
        ("10.0.0.1", "198.51.100.1 6.6.6.6", "10.0.0.1"),
        ("10.0.0.1", "1.2.3", "10.0.0.1"),
        ("10.0.0.1", "\u{0}", "10.0.0.1"),
        ("10.0.0.1", "_, 198.51.100.1\u{0}", "10.0.0.1"),
    ] as [(String, String?, String)])
    func clientAddress(peer: String, header: String?, expected: String) {
        #expect(ForwardedFor.clientAddress(peer: peer, header: header, trusted: Self.trusted) == expected)
    }

    @Test("Without trusted proxies the header is never read")
    func noTrustedProxies() {
        #expect(ForwardedFor.clientAddress(peer: "10.0.0.1", header: "198.51.100.1", trusted: []) == "10.0.0.1")
    }

    @Test("The server resolves from the socket's peer")
    func socketPeer() throws {
        let peer = try SocketAddress(ipAddress: "10.0.0.1", port: 443)
        #expect(ClientAddress.resolve(peer: peer, forwardedFor: "198.51.100.1:80", trusted: Self.trusted) == "198.51.100.1")
        #expect(ClientAddress.resolve(peer: peer, forwardedFor: "198.51.100.1:80", trusted: []) == "10.0.0.1")
        #expect(ClientAddress.resolve(peer: nil, forwardedFor: "198.51.100.1", trusted: Self.trusted) == nil)
    }
}
