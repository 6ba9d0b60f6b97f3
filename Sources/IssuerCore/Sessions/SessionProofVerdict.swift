import Foundation

/// The decision of the two-proofs step, as a pure function of what the store read (docs/reference.md,
/// "Two proofs of one session"). The refresh token is judged as the refresh grant judges it
/// (RFC 6749 §6 with the rotation rules of docs/reference.md, "Refresh tokens and sessions"):
/// the current token passes, a spent one passes only inside the reuse grace with our successor,
/// and a spent one past it is theft. It must also belong to the bearer's session.
public enum SessionProofVerdict: Sendable, Equatable {
    /// Both proofs name one live session.
    case proven
    /// The refresh token is spent past the grace: theft, so its session is revoked.
    case reuse(sessionID: UUID)
    /// `invalid_grant`; nothing changes.
    case refused(String)

    /// - Parameters:
    ///   - record: the stored token, nil when unknown.
    ///   - bearerSession: the access token's `sid`.
    ///   - successorHash: the hash of the successor derived from the presented token.
    public static func decide(
        record: SessionProofRecord?, bearerSession: UUID, successorHash: [UInt8], now: Date, grace: Duration
    ) -> SessionProofVerdict {
        guard let record else { return .refused("unknown refresh token") }
        // Another session's token proves nothing about this one, and is not this request's to revoke.
        guard record.sessionID == bearerSession else { return .refused("refresh token of another session") }
        switch record.state {
        case .current: return .proven
        case .revoked: return .refused("session revoked")
        case .sessionExpired: return .refused("session past its maximum age")
        case .expired: return .refused("refresh token expired")
        case .spent:
            let retried = RefreshOutcome.isRetry(
                spentAt: record.spentAt, storedSuccessor: record.successorHash, successorHash: successorHash, now: now, grace: grace)
            return retried ? .proven : .reuse(sessionID: record.sessionID)
        }
    }
}
