import Foundation

/// What a `--force` rotation risked (docs/reference.md, "Signing keys"): verifiers that have not yet fetched the new active
/// key reject the tokens it signs until they refresh the JWKS.
public enum ForcedRotation: Sendable, Equatable {
    /// The next key was promoted after being published since `publishedAt` only, before
    /// `promotableAt`, the end of the `promotionDelay` docs/reference.md, "Signing keys" asks for.
    case promotedEarly(kid: String, publishedAt: Date, promotableAt: Date, promotionDelay: Duration)
    /// The ring had no next key: a fresh key `kid`, never published, was made active at once.
    case promotedUnpublished(kid: String, promotionDelay: Duration)
}
