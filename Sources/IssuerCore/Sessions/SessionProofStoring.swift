import Foundation

/// What the two-proofs step reads about a presented refresh token (docs/reference.md, "Two
/// proofs of one session"): one statement, no writes. The token is looked at, never rotated.
public protocol SessionProofStoring: Sendable {
    /// The token's session and state, as of `now`; nil when no token has that hash.
    func proofRecord(tokenHash: [UInt8], now: Date) async throws -> SessionProofRecord?
}
