import Foundation

/// What the refresh grant asks of storage (the fosite habit: a narrow seam per grant), so that
/// its decisions are tested without a database and its statements against one
/// (`RefreshRotationStore`, `SessionRevocationStore`).
public protocol RefreshRotationStoring: Sendable {
    /// The one rotation statement: the verdict and what is stored, nil for an unknown token.
    /// `dpopThumbprint` is the key of the request's verified DPoP proof (docs/reference.md, "DPoP"),
    /// and `dpopProof` that proof when its `jti` is to be recorded in the same statement (an
    /// identical resend first seen since `resendSince` is the retry).
    /// - Throws: `DPoPProofReplayed` for a proof used before; nothing else happened.
    func rotate(
        tokenHash: [UInt8], successorHash: [UInt8], clientID: String, requestedScopes: [String]?, now: Date,
        successorExpiresAt: Date, dpopThumbprint: String?, dpopProof: DPoPProof?, resendSince: Date?
    ) async throws -> RefreshRecord?
    /// Revokes a session whose spent token came back (theft): every token of it.
    func revokeSession(_ sessionID: UUID, reason: String, at now: Date) async throws
}
