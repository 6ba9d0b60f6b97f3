/// Where a signing key is in its life (docs/reference.md, "Signing keys").
///
/// The raw values are what `ring.json` stores, so they are part of the on-disk format.
public enum KeyState: String, Codable, Sendable, CaseIterable {
    /// Published in the JWKS but signing nothing yet, so verifiers have cached it by the time it
    /// becomes active (docs/reference.md, "Signing keys").
    case next
    /// The one key that signs every token (docs/reference.md, "Signing keys").
    case active
    /// No longer signs; still published until every token it signed has expired, then pruned (docs/reference.md, "Signing keys").
    case retired
}
