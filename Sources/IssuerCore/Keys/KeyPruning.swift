/// What `issuer keys prune` did (SPEC §5, §6).
public struct KeyPruning: Sendable {
    /// The ring after the operation (SPEC §5).
    public let ring: KeyRing
    /// The retired keys removed from the ring and the directory (SPEC §5).
    public let removed: [SigningKey]
    /// Set when `--force` removed keys whose tokens may still be valid: says what that breaks (SPEC §5).
    public let warning: String?
    /// One line for the operator (SPEC §5).
    public let message: String
}
