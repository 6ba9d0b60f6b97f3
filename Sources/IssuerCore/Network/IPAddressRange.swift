import Foundation

/// An IPv4 or IPv6 network in CIDR notation, for `ISSUER_TRUSTED_PROXIES`.
public struct IPAddressRange: Sendable, Equatable, CustomStringConvertible {
    /// The network address, 4 or 16 bytes.
    public let network: [UInt8]
    /// Leading bits that must match: up to 32 for IPv4, 128 for IPv6.
    public let prefixLength: Int

    /// Parses `10.0.0.0/8`, `::1/128`, or a bare address (a single host).
    public init?(cidr: String) {
        let parts = cidr.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count <= 2, let address = Self.parseAddress(String(parts[0])) else { return nil }
        let maxLength = address.count * 8
        var length = maxLength
        if parts.count == 2 {
            guard let value = Int(parts[1]), (0...maxLength).contains(value) else { return nil }
            length = value
        }
        self.network = Self.masked(address, length)
        self.prefixLength = length
    }

    /// Whether `address` (textual IPv4 or IPv6) lies in this network. IPv4-mapped IPv6
    /// addresses (`::ffff:10.0.0.1`) match IPv4 ranges, as a dual-stack socket reports them so.
    public func contains(_ address: String) -> Bool {
        guard var bytes = Self.parseAddress(address) else { return false }
        if bytes.count == 16, network.count == 4, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff {
            bytes = Array(bytes[12...])
        }
        guard bytes.count == network.count else { return false }
        return Self.masked(bytes, prefixLength) == network
    }

    /// CIDR text of the masked network, e.g. `10.0.0.0/8`.
    public var description: String {
        let text: String
        if network.count == 4 {
            text = network.map(String.init).joined(separator: ".")
        } else {
            text = stride(from: 0, to: 16, by: 2).map { String(UInt16(network[$0]) << 8 | UInt16(network[$0 + 1]), radix: 16) }
                .joined(separator: ":")
        }
        return "\(text)/\(prefixLength)"
    }

    static func parseAddress(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { Array($0) }
        }
        return nil
    }

    private static func masked(_ bytes: [UInt8], _ length: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            let bits = max(0, min(8, length - index * 8))
            return bits == 8 ? byte : byte & ~(0xff >> bits)
        }
    }
}
