import IssuerCore

/// The fetcher `issuer serve` uses for a provider's JWK Set, for `issuer doctor`'s reachability
/// check: the same deadline for the whole exchange, body cap, refused redirects and
/// `https`-or-loopback rule, so a check that passes means the server's own fetch would.
public enum RemoteJWKSFetch {
    /// `timeout` bounds the whole exchange, body included (docs/configuration.md: 5 s); `proxy`
    /// is the server's (docs/reference.md, "Outbound proxy").
    public static func fetcher(timeout: Duration = .seconds(5), proxy: OutboundProxy = .direct) -> any JWKSFetcher {
        var fetcher = HTTPJWKSFetcher()
        fetcher.fetch.timeout = timeout
        fetcher.fetch.proxy = proxy
        return fetcher
    }
}
