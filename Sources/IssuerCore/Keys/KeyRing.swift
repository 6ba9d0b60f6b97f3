import Foundation
import JOSE

/// The signing key ring (docs/reference.md, "Signing keys") as one immutable value: exactly one active key, at most one
/// next key, and any number of retired keys — or nothing at all, before `issuer keys init`.
///
/// Immutable so that a server can swap the whole ring atomically when the directory changes
/// (docs/design.md, "Keys and tokens") and every request sees one consistent ring; the initializer refuses any
/// other shape, so holding a `KeyRing` means holding a valid one.
public struct KeyRing: Sendable {
    /// The ring before `issuer keys init`: no keys, nothing to sign with, nothing to publish (docs/reference.md, "Signing keys").
    public static let empty = KeyRing(validated: [], signerTiming: nil)

    /// Every key: the active key first, then the next key, then retired keys, most recently retired first (docs/reference.md, "Signing keys").
    public let keys: [SigningKey]

    /// The longest token lifetime and reload interval of the servers that sign with this ring, as
    /// they recorded it; `nil` until a server has (see ``SignerTiming``, docs/reference.md, "Signing keys").
    public let signerTiming: SignerTiming?

    /// Checks the docs/reference.md, "Signing keys" invariants and orders the keys; throws a ``KeyRingError`` naming the first violation.
    ///
    /// With `signerTiming`, every retired key's `publishedUntil` is at least what that timing
    /// implies from its `retiredAt`, whoever computed the stored date and with whatever TTLs.
    public init(keys: [SigningKey], signerTiming: SignerTiming? = nil) throws {
        var seen = Set<String>()
        for key in keys where !seen.insert(key.kid).inserted {
            throw KeyRingError.duplicateKid(key.kid)
        }
        if !keys.isEmpty {
            let actives = keys.filter { $0.state == .active }
            guard !actives.isEmpty else { throw KeyRingError.noActiveKey }
            guard actives.count == 1 else { throw KeyRingError.multipleActiveKeys(actives.map(\.kid)) }
            let nexts = keys.filter { $0.state == .next }
            guard nexts.count <= 1 else { throw KeyRingError.multipleNextKeys(nexts.map(\.kid)) }
        }
        for key in keys {
            switch key.state {
            case .next:
                guard key.activatedAt == nil, key.retiredAt == nil else {
                    throw KeyRingError.inconsistentTimestamps(kid: key.kid, detail: "a next key has never been activated or retired")
                }
            case .active:
                guard key.activatedAt != nil, key.retiredAt == nil else {
                    throw KeyRingError.inconsistentTimestamps(kid: key.kid, detail: "an active key needs activatedAt and no retiredAt")
                }
            case .retired:
                guard key.retiredAt != nil, key.publishedUntil != nil else {
                    throw KeyRingError.inconsistentTimestamps(kid: key.kid, detail: "a retired key needs retiredAt and publishedUntil")
                }
            }
        }
        self.init(validated: keys, signerTiming: signerTiming)
    }

    private init(validated keys: [SigningKey], signerTiming: SignerTiming?) {
        self.signerTiming = signerTiming
        let rank: (KeyState) -> Int = { state in
            switch state {
            case .active: 0
            case .next: 1
            case .retired: 2
            }
        }
        let keys = signerTiming.map { timing in keys.map { $0.publishedAtLeast(per: timing.policy) } } ?? keys
        self.keys = keys.sorted { a, b in
            if a.state != b.state { return rank(a.state) < rank(b.state) }
            return (a.retiredAt ?? .distantPast) > (b.retiredAt ?? .distantPast)
        }
    }

    /// True before `issuer keys init`; distinct from a ring that failed to load, which throws instead (docs/reference.md, "Signing keys").
    public var isEmpty: Bool { keys.isEmpty }

    /// The key that signs every token (docs/reference.md, "Access tokens" and "ID tokens"); `nil` only for the empty ring.
    public var active: SigningKey? { keys.first { $0.state == .active } }

    /// The key that will sign after the next rotation, already published (docs/reference.md, "Signing keys").
    public var next: SigningKey? { keys.first { $0.state == .next } }

    /// Keys that no longer sign, most recently retired first, whether or not still published (docs/reference.md, "Signing keys").
    public var retired: [SigningKey] { keys.filter { $0.state == .retired } }

    /// The key named `kid`, in any state (docs/reference.md, "Signing keys").
    public func key(kid: String) -> SigningKey? {
        keys.first { $0.kid == kid }
    }

    /// The keys the JWKS carries at `date` (docs/reference.md, "JWKS"): active, next, and retired keys still inside
    /// their publication window. Also the only keys our own tokens are verified with.
    public func publishedKeys(at date: Date) -> [SigningKey] {
        keys.filter { $0.isPublished(at: date) }
    }

    /// The JWK Set (RFC 7517 §5) of ``publishedKeys(at:)``; public members only.
    public func jwks(at date: Date) -> JWKS {
        JWKS(keys: publishedKeys(at: date).map(\.jwk))
    }
}
