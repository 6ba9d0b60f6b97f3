import Foundation

/// A rotation that happened (SPEC §5): `promoted` went next → active, `retired` active → retired,
/// and `next` is the fresh next key. The CLI words it.
public struct CompletedRotation: Sendable {
    /// The ring after the rotation (SPEC §5).
    public let ring: KeyRing
    /// The key that now signs (SPEC §5).
    public let promoted: SigningKey
    /// The key that signed until now; published until its `publishedUntil` (SPEC §5).
    public let retired: SigningKey
    /// The new next key (SPEC §5).
    public let next: SigningKey
    /// Set when `--force` overrode the SPEC §5 timing: what the rotation risks.
    public let forced: ForcedRotation?
    /// When the rotation happened, whole seconds (SPEC §5).
    public let rotatedAt: Date
}
