import Foundation

/// What `issuer keys prune` did (SPEC §5, §6). The CLI words it.
public struct KeyPruning: Sendable {
    /// The ring after the operation (SPEC §5).
    public let ring: KeyRing
    /// The retired keys removed from the ring and the directory (SPEC §5).
    public let removed: [SigningKey]
    /// Set when `--force` removed keys whose tokens may still be valid (SPEC §5): those keys, and
    /// the latest instant at which one of them would have become prunable.
    public let forced: (kids: [String], prunableAt: Date)?
    /// When nothing was removed: the earliest instant a retired key may be pruned; nil without retired keys (SPEC §5).
    public let nextPrunableAt: Date?
    /// When the prune ran, whole seconds (SPEC §5).
    public let prunedAt: Date
}
