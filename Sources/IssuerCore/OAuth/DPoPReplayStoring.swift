import Foundation

/// The `jti` replay memory of DPoP proofs (RFC 9449 §11.1) as the proof check asks for it: kept
/// where every process agrees (docs/reference.md, "DPoP"), one proof recorded or refused at once.
public protocol DPoPReplayStoring: Sendable {
    /// Records `proof` as seen at `now`; false when its `jti` was seen before for its key (a
    /// replay), except for an identical resend first seen no earlier than `resendSince`.
    /// - Parameter resendSince: nil where no resend is a retry (only a refresh has one).
    func record(_ proof: DPoPProof, now: Date, resendSince: Date?) async throws -> Bool
}
