import Foundation

extension URL {
    /// docs/reference.md, "Faults and bad input": a remote party's endpoint (Apple's JWKS, token, revoke) is reached over `https`;
    /// plain `http` only to a loopback address (`127.0.0.0/8`, `::1`, `localhost`), for development
    /// and tests, where nothing crosses a network.
    public var isSecureOrLoopback: Bool {
        switch scheme?.lowercased() {
        case "https": return host?.isEmpty == false
        case "http": return host.map(Self.isLoopbackHost) ?? false
        default: return false
        }
    }

    /// `localhost` (RFC 6761 §6.3), or a literal address in `127.0.0.0/8` or `::1`.
    static func isLoopbackHost(_ host: String) -> Bool {
        var name = host.lowercased()
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if name.hasSuffix(".") { name.removeLast() }
        if name == "localhost" || name.hasSuffix(".localhost") { return true }
        return [IPAddressRange(cidr: "127.0.0.0/8"), IPAddressRange(cidr: "::1/128")]
            .contains { $0?.contains(name) == true }
    }
}
