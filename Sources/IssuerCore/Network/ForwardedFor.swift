import Foundation

/// Which address an `X-Forwarded-For` chain names as the client, for sessions and rate limits.
///
/// Pure (text in, text out) so that it can be tested by table and fuzzed on its own; the server
/// supplies the peer's address from the socket. Foundation only: it compiles with
/// `IPAddressRange.swift` and nothing else.
public enum ForwardedFor {
    /// The client's address: `peer` unless `peer` is a trusted proxy, in which case the chain is
    /// read from the right, skipping further trusted proxies, because every hop left of the first
    /// untrusted one was written by the client itself and proves nothing.
    ///
    /// A hop that is not an address (garbage, a CIDR, an IPv6 zone) ends the walk at the proxy that
    /// wrote it: `peer` is answered, never a client-chosen string. A hop may carry a port
    /// (`192.0.2.1:443`, `[2001:db8::1]:443`), which is dropped. Addresses come back in one
    /// canonical text per address, an IPv4-mapped IPv6 address as IPv4, so one client is one key.
    public static func clientAddress(peer: String, header: String?, trusted: [IPAddressRange]) -> String {
        guard !trusted.isEmpty, let header, isTrusted(peer, trusted) else { return peer }
        var last: String?
        for hop in header.split(separator: ",").reversed() {
            let text = hop.trimmingCharacters(in: .whitespaces)
            if text.isEmpty { continue }
            guard let address = canonicalAddress(text) else { return peer }
            if !isTrusted(address, trusted) { return address }
            last = address
        }
        // Every hop is a trusted proxy: the leftmost is as close to the client as the chain gets.
        return last ?? peer
    }

    /// `text` as one address in canonical form, a port or IPv6 brackets removed; nil for anything
    /// else.
    public static func canonicalAddress(_ text: some StringProtocol) -> String? {
        var host = Substring(text)
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return nil }
            let rest = host[host.index(after: close)...]
            guard rest.isEmpty || isPort(rest) else { return nil }
            host = host[host.index(after: host.startIndex)..<close]
            guard host.contains(":") else { return nil }
        } else if let colon = host.firstIndex(of: ":"), host.lastIndex(of: ":") == colon {
            guard isPort(host[colon...]) else { return nil }
            host = host[..<colon]
            guard !host.contains(":") else { return nil }
        }
        // inet_pton reads a C string: a NUL would end it early and let trailing text through.
        guard !host.isEmpty, host.utf8.allSatisfy(isAddressByte), var bytes = IPAddressRange.parseAddress(String(host))
        else { return nil }
        if bytes.count == 16, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff {
            bytes = Array(bytes[12...])
        }
        return format(bytes)
    }

    /// Hex digits, `.` and `:`: all an IPv4 or IPv6 literal is made of.
    static func isAddressByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
             UInt8(ascii: "A")...UInt8(ascii: "F"), UInt8(ascii: "."), UInt8(ascii: ":"):
            return true
        default:
            return false
        }
    }

    /// `:` followed by 1 to 5 digits.
    static func isPort(_ text: Substring) -> Bool {
        let digits = text.dropFirst()
        return text.first == ":" && (1...5).contains(digits.count) && digits.allSatisfy { $0.isASCII && $0.isNumber }
    }

    static func format(_ bytes: [UInt8]) -> String? {
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        var output = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let written = bytes.withUnsafeBytes { raw in
            inet_ntop(family, raw.baseAddress, &output, socklen_t(output.count))
        }
        guard written != nil else { return nil }
        return String(decoding: output.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func isTrusted(_ address: String, _ trusted: [IPAddressRange]) -> Bool {
        trusted.contains { $0.contains(address) }
    }
}
