import Foundation

/// What the servers signing with a ring need of it, recorded in the ring's state (`ring.json`)
/// so that `issuer keys rotate` and `issuer keys prune` know it wherever they run (docs/reference.md, "Signing keys").
///
/// Why it is recorded: how long a retired key must stay published depends on the *servers'*
/// `ISSUER_ACCESS_TOKEN_TTL`, `ISSUER_ID_TOKEN_TTL` and `ISSUER_KEYS_RELOAD_SECONDS`, but the
/// CLI runs elsewhere (a cron host, an operator's shell) whose environment may lack them. Then a
/// server issuing 24-hour tokens and a CLI that assumes the one-hour default would unpublish a
/// key while its tokens are still valid. So every server records its own numbers in the ring
/// when it loads it, before it signs with it, and the ring keeps the maximum over every server
/// that ever did: the record only grows (a lowered TTL keeps keys published longer than needed,
/// which is safe; the opposite is not).
///
/// How it is used: every retired key is published, and kept from `keys prune`, until at least
/// what this timing implies from its `retiredAt` (``KeyRing/init(keys:signerTiming:)`` applies
/// it on load, so the JWKS, `keys list` and `keys prune` agree), and `keys prune` also honours
/// its own environment's numbers, whichever is longer. A server on a read-only ring volume cannot
/// record, and says so in its log; there the CLI's environment must carry the servers' TTLs.
public struct SignerTiming: Sendable, Equatable, Codable {
    /// The longest lifetime of a token the servers sign, in seconds: `max(access, ID token TTL)` (docs/reference.md, "Configuration").
    public var longestTokenLifetime: Int
    /// The servers' `ISSUER_KEYS_RELOAD_SECONDS` (docs/reference.md, "Configuration"): how long one may keep signing with a retired key.
    public var reloadInterval: Int

    /// Explicit numbers, in seconds (docs/reference.md, "Signing keys").
    public init(longestTokenLifetime: Int, reloadInterval: Int) {
        self.longestTokenLifetime = longestTokenLifetime
        self.reloadInterval = reloadInterval
    }

    /// The timing a server with `configuration` needs (docs/reference.md, "Configuration" and "Signing keys").
    public init(configuration: Configuration) {
        self.init(
            longestTokenLifetime: max(configuration.accessTokenTTL, configuration.idTokenTTL).wholeSeconds,
            reloadInterval: configuration.keysReloadInterval.wholeSeconds)
    }

    /// Whether recording `other` would change nothing.
    public func covers(_ other: SignerTiming) -> Bool {
        longestTokenLifetime >= other.longestTokenLifetime && reloadInterval >= other.reloadInterval
    }

    /// The larger of each number.
    public func merged(with other: SignerTiming?) -> SignerTiming {
        guard let other else { return self }
        return SignerTiming(
            longestTokenLifetime: max(longestTokenLifetime, other.longestTokenLifetime),
            reloadInterval: max(reloadInterval, other.reloadInterval))
    }

    /// The rotation policy these numbers imply (docs/reference.md, "Signing keys").
    public var policy: KeyRotationPolicy {
        KeyRotationPolicy(longestTokenLifetime: .seconds(longestTokenLifetime), reloadInterval: .seconds(reloadInterval))
    }

    enum CodingKeys: String, CodingKey {
        case longestTokenLifetime = "longestTokenLifetimeSeconds"
        case reloadInterval = "reloadSeconds"
    }
}
