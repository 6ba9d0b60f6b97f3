/// What `issuer keys init` did (SPEC §6): created an active and a next key, added a missing next
/// key, or nothing because the ring was already complete.
public struct KeyInitialization: Sendable {
    /// The ring after the operation (SPEC §6).
    public let ring: KeyRing
    /// The keys created; empty when nothing was done (SPEC §6).
    public let created: [SigningKey]
    /// One line for the operator (SPEC §6).
    public let message: String
}
