import Foundation

extension ProviderRegistry {
    /// Why `provider` cannot join `earlier` (whose entries `labels` name), or nil. A token's `iss`
    /// chooses the provider whose checks it meets (OIDC Core §3.1.3.7 step 2), so an issuer claimed
    /// twice, or Apple's claimed at all, would let a file entry's audiences and rules stand in for the
    /// ones meant for it: for Apple, around the nonce requirement, a client's `apple_audiences` and
    /// Apple token custody (docs/reference.md, "Google and other OpenID providers"). Every issuer a
    /// provider accepts is compared, written as it may be written: scheme, case of the host, default
    /// port and trailing slashes aside.
    static func ambiguity(of provider: ProviderSettings, among earlier: [ProviderSettings], labels: [String]) -> String? {
        let apple = comparable(IdentityProvider.apple.issuer)
        for issuer in provider.issuers.sorted() {
            let key = comparable(issuer)
            if key == apple {
                return "the issuer \(ConfigurationJSON.quoted(issuer)) is Sign in with Apple's, which only the ISSUER_APPLE_ settings configure"
            }
            if let other = earlier.indices.first(where: { earlier[$0].issuers.contains { comparable($0) == key } }) {
                return "the issuer \(ConfigurationJSON.quoted(issuer)) is also \(labels[other])'s: two providers with one issuer"
            }
        }
        return nil
    }

    /// `issuer` as compared for sameness: host (lower case, without a final dot), port unless the
    /// scheme's default, and path without trailing slashes; the scheme dropped, as Google's
    /// `accounts.google.com` drops it (OIDC Core §15.6.2).
    static func comparable(_ issuer: String) -> String {
        let withScheme = issuer.contains("://") ? issuer : "https://" + issuer
        guard let components = URLComponents(string: withScheme), var host = components.host?.lowercased(), !host.isEmpty else {
            return issuer.lowercased()
        }
        if host.hasSuffix(".") { host.removeLast() }
        let scheme = components.scheme?.lowercased()
        let port = components.port.flatMap { port in
            (scheme == "https" && port == 443) || (scheme == "http" && port == 80) ? nil : port
        }
        var path = components.percentEncodedPath
        while path.hasSuffix("/") { path.removeLast() }
        return host + (port.map { ":\($0)" } ?? "") + path + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
    }
}
