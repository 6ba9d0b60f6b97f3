import Foundation

/// A rotation that happened (docs/reference.md, "Signing keys"): `promoted` went next → active, `retired` active → retired,
/// and `next` is the fresh next key. The CLI words it.
public struct CompletedRotation: Sendable {
    /// The ring after the rotation (docs/reference.md, "Signing keys").
    public let ring: KeyRing
    /// The key that now signs (docs/reference.md, "Signing keys").
    public let promoted: SigningKey
    /// The key that signed until now; published until its `publishedUntil` (docs/reference.md, "Signing keys").
    public let retired: SigningKey
    /// The new next key (docs/reference.md, "Signing keys").
    public let next: SigningKey
    /// Set when `--force` overrode the docs/reference.md, "Signing keys" timing: what the rotation risks.
    public let forced: ForcedRotation?
    /// When the rotation happened, whole seconds (docs/reference.md, "Signing keys").
    public let rotatedAt: Date
}
