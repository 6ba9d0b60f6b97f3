import Foundation

/// The decision of a refresh (docs/reference.md, "Refresh tokens and sessions"), as a value. The rotation statement has already decided
/// everything the database must decide under concurrency (`RefreshVerdict`); this adds the one
/// thing it leaves to Swift: whether a spent token is an idempotent retry or a theft.
public enum RefreshOutcome: Sendable, Equatable {
    /// Rotated now: answer the successor.
    case rotated(RefreshRecord)
    /// A spent token presented again within the grace window, whose stored successor is the one
    /// we derive: an idempotent retry, answered with that same successor.
    case retry(RefreshRecord)
    /// A spent token presented after the grace window, or whose successor is not ours: treat as
    /// theft and revoke the session.
    case reuse(RefreshRecord)
    /// Unknown, expired, revoked, or another client's token: `invalid_grant`, nothing changes.
    case refused(String)
    /// The request asked for scopes the session does not have (RFC 6749 §6): nothing changes.
    case scopeNotGranted

    /// - Parameters:
    ///   - record: what the rotation statement returned, or nil if the hash is unknown.
    ///   - successorHash: the hash of the successor we derive from the presented token.
    public static func decide(record: RefreshRecord?, successorHash: [UInt8], now: Date, grace: Duration) -> RefreshOutcome {
        guard let record else { return .refused("unknown refresh token") }
        switch record.verdict {
        case .rotated: return .rotated(record)
        case .anotherClient, .scopeNotGranted:
            // The session is live (the statement says a revoked or ended one first). The request's
            // own mistake is reported only for a token not spent before the grace: a spent token
            // presented after it is theft whatever client or scope the request names, or a thief
            // could dodge the detection by widening the scope.
            if record.spentAt != nil,
               !isRetry(spentAt: record.spentAt, storedSuccessor: record.successorHash, successorHash: successorHash, now: now, grace: grace) {
                return .reuse(record)
            }
            return record.verdict == .anotherClient ? .refused("refresh token of another client") : .scopeNotGranted
        case .keyMismatch: return .refused("no DPoP proof from the key the session is bound to")
        case .proofReplayed: return .refused("a replayed DPoP proof")
        case .revoked: return .refused("session revoked")
        case .sessionExpired: return .refused("session past its maximum age")
        case .expired: return .refused("refresh token expired")
        case .spent:
            let retried = isRetry(spentAt: record.spentAt, storedSuccessor: record.successorHash, successorHash: successorHash, now: now, grace: grace)
            return retried ? .retry(record) : .reuse(record)
        }
    }

    /// Whether a spent token presented again is an idempotent retry: inside the grace window,
    /// and its stored successor is the one we derive. Anything else is a reuse (theft). The
    /// refresh grant and the two-proofs step judge spent tokens by this one rule.
    public static func isRetry(spentAt: Date?, storedSuccessor: [UInt8]?, successorHash: [UInt8], now: Date, grace: Duration) -> Bool {
        guard let spentAt, now.timeIntervalSince(spentAt) <= grace.timeInterval else { return false }
        return storedSuccessor == successorHash
    }
}
