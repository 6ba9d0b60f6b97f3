import Foundation

/// What `issuer keys prune` did (docs/reference.md, "Signing keys" and "Admin CLI"). The CLI words it.
public struct KeyPruning: Sendable {
    /// The ring after the operation (docs/reference.md, "Signing keys").
    public let ring: KeyRing
    /// The retired keys removed from the ring and the directory (docs/reference.md, "Signing keys").
    public let removed: [SigningKey]
    /// Set when `--force` removed keys whose tokens may still be valid (docs/reference.md, "Signing keys"): those keys, and
    /// the latest instant at which one of them would have become prunable.
    public let forced: (kids: [String], prunableAt: Date)?
    /// When nothing was removed: the earliest instant a retired key may be pruned; nil without retired keys (docs/reference.md, "Signing keys").
    public let nextPrunableAt: Date?
    /// When the prune ran, whole seconds (docs/reference.md, "Signing keys").
    public let prunedAt: Date
}
