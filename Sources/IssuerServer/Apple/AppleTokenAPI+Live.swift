import Foundation
import IssuerCore

extension AppleTokenAPI {
    /// Apple's token and revoke endpoints over HTTP (the rules (docs/reference.md, "Faults and bad input")), with the configured
    /// developer credentials, through the configured proxy (docs/reference.md, "Outbound proxy"); nil without the
    /// credentials. For the admin CLI (`issuer users delete`, `issuer apple transfer`).
    public static func live(
        credentials: Configuration.AppleCredentials?, tokenURL: URL, revokeURL: URL, migrationURL: URL? = nil, proxy: OutboundProxy,
        clock: any WallClock
    ) -> AppleTokenAPI? {
        credentials.map {
            AppleTokenAPI(
                credentials: $0, transport: HTTPFormPoster(proxy: proxy), tokenURL: tokenURL, revokeURL: revokeURL,
                migrationURL: migrationURL, clock: clock)
        }
    }
}
