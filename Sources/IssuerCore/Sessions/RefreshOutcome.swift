import Foundation

/// The decision of a refresh (SPEC §4.3), computed from the stored record alone, as a value:
/// the rotation statement has already done whatever the database had to decide under
/// concurrency, and this says what that means.
public enum RefreshOutcome: Sendable, Equatable {
    /// Rotated now: answer the successor.
    case rotated
    /// A spent token presented again within the grace window, whose stored successor is the one
    /// we derive: an idempotent retry, answered with that same successor.
    case retry
    /// A spent token presented after the grace window: treat as theft and revoke the session.
    case reuse
    /// Unknown, expired, revoked, or another client's token: `invalid_grant`, nothing changes.
    case refused(String)
    /// The request asked for scopes the session does not have (RFC 6749 §6): nothing changes.
    case scopeNotGranted

    /// - Parameters:
    ///   - record: the stored token and session, or nil if the hash is unknown.
    ///   - successorHash: the hash of the successor we derive from the presented token.
    public static func decide(
        record: RefreshRecord?, clientID: String, requestedScopes: [String]?, successorHash: [UInt8], now: Date,
        grace: TimeInterval
    ) -> RefreshOutcome {
        guard let record else { return .refused("unknown refresh token") }
        guard record.clientID == clientID else { return .refused("refresh token of another client") }
        if let requestedScopes, !Set(requestedScopes).isSubset(of: record.scopes) { return .scopeNotGranted }
        guard record.revokedAt == nil else { return .refused("session revoked") }
        guard record.sessionExpiresAt > now else { return .refused("session past its maximum age") }
        if record.rotatedNow { return .rotated }
        guard let spentAt = record.spentAt else {
            // Not spent, not rotated: the statement's guard refused it, so it has expired.
            return .refused("refresh token expired")
        }
        if now.timeIntervalSince(spentAt) <= grace, record.successorHash == successorHash {
            return .retry
        }
        return .reuse
    }
}
