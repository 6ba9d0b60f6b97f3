import Foundation

/// What `issuer keys init` did (docs/reference.md, "Admin CLI"): created an active and a next key, added a missing next
/// key, or nothing because the ring was already complete. The CLI words it.
public struct KeyInitialization: Sendable {
    /// What changed in the ring (docs/reference.md, "Admin CLI").
    public enum Change: Sendable, Equatable {
        /// The ring was empty: an active and a next key were created.
        case createdRing(activeKid: String, nextKid: String)
        /// Only the next key was missing: it was created, and may be promoted from `promotableAt` (docs/reference.md, "Signing keys").
        case addedNextKey(kid: String, promotableAt: Date)
        /// The ring already had its active and next keys.
        case none
    }

    /// The ring after the operation (docs/reference.md, "Admin CLI").
    public let ring: KeyRing
    /// The keys created; empty when nothing was done (docs/reference.md, "Admin CLI").
    public let created: [SigningKey]
    /// What changed (docs/reference.md, "Admin CLI").
    public let change: Change
    /// The ring directory, `ISSUER_KEYS_DIR` (docs/reference.md, "Configuration").
    public let directory: String
}
