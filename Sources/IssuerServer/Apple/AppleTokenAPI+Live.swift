import Foundation
import IssuerCore

extension AppleTokenAPI {
    /// Apple's token and revoke endpoints over HTTP (the rules (docs/reference.md, "Faults and bad input")), with the configured
    /// developer credentials; nil without them. For the admin CLI (`issuer users delete`).
    public static func live(
        credentials: Configuration.AppleCredentials?, tokenURL: URL, revokeURL: URL, clock: any WallClock
    ) -> AppleTokenAPI? {
        credentials.map {
            AppleTokenAPI(credentials: $0, transport: HTTPAppleTransport(), tokenURL: tokenURL, revokeURL: revokeURL, clock: clock)
        }
    }
}
