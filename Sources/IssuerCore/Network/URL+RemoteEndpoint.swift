import Foundation

extension URL {
    /// docs/reference.md, "Faults and bad input": a remote party's endpoint that the operator configured (Apple's
    /// JWKS, token, revoke; a provider's issuer or endpoints) is reached over `https`; plain `http`
    /// only to a loopback address (`127.0.0.0/8`, `::1`, `localhost`), for development and tests,
    /// where nothing crosses a network.
    public var isSecureOrLoopback: Bool {
        switch scheme?.lowercased() {
        case "https": return host?.isEmpty == false
        case "http": return isLoopback
        default: return false
        }
    }

    /// docs/reference.md, "Google and other OpenID providers": an endpoint that a remote party's
    /// own document names (its discovery document's `jwks_uri`, `token_endpoint`…) is reached
    /// over `https`; plain `http` to loopback only when the operator configured that party's
    /// `issuer` on loopback too (development), never because the document says so, or any
    /// provider could have the issuer post its client secret to a service on the issuer's host.
    public func mayBeNamed(byDocumentOf issuer: URL) -> Bool {
        isSecureOrLoopback && (scheme?.lowercased() == "https" || issuer.isLoopback)
    }

    /// Whether the host is loopback (`isLoopbackHost`).
    public var isLoopback: Bool { host.map(Self.isLoopbackHost) ?? false }

    /// `localhost` itself (RFC 6761 §6.3), or a literal address in `127.0.0.0/8` or `::1`. Not a
    /// name under `.localhost` (`evil.localhost`): whether one reaches loopback is up to whichever
    /// resolver the host uses, so it is judged as any other name.
    static func isLoopbackHost(_ host: String) -> Bool {
        var name = host.lowercased()
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if name.hasSuffix(".") { name.removeLast() }
        if name == "localhost" { return true }
        return [IPAddressRange(cidr: "127.0.0.0/8"), IPAddressRange(cidr: "::1/128")]
            .contains { $0?.contains(name) == true }
    }
}
