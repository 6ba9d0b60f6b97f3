import Foundation

/// What `issuer keys init` did (SPEC §6): created an active and a next key, added a missing next
/// key, or nothing because the ring was already complete. The CLI words it.
public struct KeyInitialization: Sendable {
    /// What changed in the ring (SPEC §6).
    public enum Change: Sendable, Equatable {
        /// The ring was empty: an active and a next key were created.
        case createdRing(activeKid: String, nextKid: String)
        /// Only the next key was missing: it was created, and may be promoted from `promotableAt` (SPEC §5).
        case addedNextKey(kid: String, promotableAt: Date)
        /// The ring already had its active and next keys.
        case none
    }

    /// The ring after the operation (SPEC §6).
    public let ring: KeyRing
    /// The keys created; empty when nothing was done (SPEC §6).
    public let created: [SigningKey]
    /// What changed (SPEC §6).
    public let change: Change
    /// The ring directory, `ISSUER_KEYS_DIR` (SPEC §2).
    public let directory: String
}
