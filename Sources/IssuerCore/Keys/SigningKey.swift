import Foundation
import JOSE

/// One RS256 key of the ring (docs/reference.md, "Signing keys") with its lifecycle timestamps.
///
/// The `kid` is computed from the key itself (RFC 7638 thumbprint), never taken on trust, so the
/// same key has the same id in every process and a `ring.json` entry that names another key is
/// caught when the ring is loaded.
public struct SigningKey: Sendable {
    /// The RFC 7638 §3 thumbprint of the public key, used as the JWS `kid` (RFC 7515 §4.1.4).
    public let kid: String
    /// The private key; shared, immutable and safe to sign with from many threads at once (docs/reference.md, "Signing keys").
    public let privateKey: RSAPrivateKey
    /// The key's place in the rotation (docs/reference.md, "Signing keys").
    public let state: KeyState
    /// When the key entered the ring; a next key may be promoted only 360 s after this (docs/reference.md, "Signing keys").
    public let createdAt: Date
    /// When the key became active; `nil` while it is the next key (docs/reference.md, "Signing keys").
    public let activatedAt: Date?
    /// When the key stopped signing; `nil` unless retired (docs/reference.md, "Signing keys").
    public let retiredAt: Date?
    /// When a retired key leaves the JWKS and may be pruned (see ``KeyRotation/Policy``); `nil` unless retired (docs/reference.md, "Signing keys").
    public let publishedUntil: Date?

    /// Wraps `privateKey` with the given lifecycle; the `kid` is its RFC 7638 thumbprint.
    public init(
        privateKey: RSAPrivateKey, state: KeyState, createdAt: Date,
        activatedAt: Date? = nil, retiredAt: Date? = nil, publishedUntil: Date? = nil
    ) {
        self.kid = privateKey.publicKey.thumbprint
        self.privateKey = privateKey
        self.state = state
        self.createdAt = createdAt
        self.activatedAt = activatedAt
        self.retiredAt = retiredAt
        self.publishedUntil = publishedUntil
    }

    /// The verification key, for the JWKS (RFC 7517) and for checking our own tokens.
    public var publicKey: RSAPublicKey { privateKey.publicKey }

    /// The public JWK with `use: sig`, `alg: RS256` and this `kid` (docs/reference.md, "JWKS"); it has no private members.
    public var jwk: JWK { publicKey.jwk(kid: kid) }

    /// Whether the key belongs in the JWKS at `date` (docs/reference.md, "JWKS"): active and next keys always,
    /// retired keys until their `publishedUntil`.
    public func isPublished(at date: Date) -> Bool {
        switch state {
        case .active, .next: true
        case .retired: publishedUntil.map { date < $0 } ?? false
        }
    }
}
