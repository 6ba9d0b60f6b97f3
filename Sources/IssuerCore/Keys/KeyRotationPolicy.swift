import Foundation

/// The timing rules (docs/reference.md, "Signing keys"), as numbers.
///
/// Promotion: a next key may become active once it has been in the JWKS for the JWKS `max-age`
/// (300 s, docs/reference.md, "JWKS") plus 60 s — by then every verifier that honours our `Cache-Control` has
/// fetched it (the 60 s is the `stale-while-revalidate` window, during which a cache may still
/// serve the previous body).
///
/// Publication of a retired key (its `publishedUntil`) lasts, from the moment it was retired:
/// - the key-ring reload interval: a server that has not yet re-read the ring keeps signing with
///   the old key for up to that long;
/// - the longest token lifetime it could have signed (`max(ISSUER_ACCESS_TOKEN_TTL, ISSUER_ID_TOKEN_TTL)`);
/// - the same 360 s margin as promotion, which covers the clock skew leeway verifiers grant on `exp`.
/// With the defaults that is 5 + 3600 + 360 = 3965 s. Refresh tokens are opaque and signed by
/// nothing, so their TTL does not count.
public struct KeyRotationPolicy: Sendable, Equatable {
    /// The JWKS `Cache-Control: max-age` (docs/reference.md, "JWKS").
    public var jwksMaxAge: Duration = .seconds(300)
    /// The extra 60 s (docs/reference.md, "Signing keys") (the JWKS `stale-while-revalidate`).
    public var jwksMargin: Duration = .seconds(60)
    /// The longest lifetime of a token our keys sign (docs/reference.md, "Configuration" TTLs).
    public var longestTokenLifetime: Duration
    /// How late a running server may notice a changed ring (`ISSUER_KEYS_RELOAD_SECONDS`, docs/reference.md, "Configuration").
    public var reloadInterval: Duration
    /// Size of new keys; RFC 7518 §3.3 requires at least 2048.
    public var keyBits: Int = 2048

    /// A policy from explicit lifetimes (docs/reference.md, "Signing keys").
    public init(longestTokenLifetime: Duration, reloadInterval: Duration) {
        self.longestTokenLifetime = longestTokenLifetime
        self.reloadInterval = reloadInterval
    }

    /// The policy the configured TTLs and reload interval imply (docs/reference.md, "Configuration" and "Signing keys").
    public init(configuration: Configuration) {
        self.init(
            longestTokenLifetime: max(configuration.accessTokenTTL, configuration.idTokenTTL),
            reloadInterval: configuration.keysReloadInterval)
    }

    /// How long a next key must have been in the ring before it may be promoted (docs/reference.md, "Signing keys").
    public var promotionDelay: Duration { jwksMaxAge + jwksMargin }

    /// When the next key that entered the ring at `createdAt` may be promoted (docs/reference.md, "Signing keys").
    public func promotableAt(createdAt: Date) -> Date {
        createdAt.addingTimeInterval(promotionDelay.timeInterval)
    }

    /// When a key retired at `retiredAt` leaves the JWKS and may be pruned (docs/reference.md, "Signing keys"; see the type's notes).
    public func publishedUntil(retiredAt: Date) -> Date {
        retiredAt.addingTimeInterval((reloadInterval + longestTokenLifetime + jwksMaxAge + jwksMargin).timeInterval)
    }
}
