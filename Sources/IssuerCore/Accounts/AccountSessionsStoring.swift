import Foundation

/// What the user's own list of signed-in devices asks of storage (docs/reference.md, "Signed-in
/// devices"): every statement names the user, so a session id of another user is never listed or
/// revoked, and checks the proving session is still live, so one revoked since its proof was read
/// revokes nothing.
package protocol AccountSessionsStoring: Sendable {
    /// The user's live sessions (not revoked, not expired, tokens issued), newest first.
    func live(userID: UUID, now: Date) async throws -> [AccountSession]
    /// Revokes the user's live session `sessionID` while `provingSessionID` is live; false when
    /// `sessionID` is not a live session of the user, nil when the proving session is no longer live.
    func revoke(sessionID: UUID, userID: UUID, provingSessionID: UUID, now: Date) async throws -> Bool?
    /// Revokes every session of the user but `keeping`, the proving session ("sign out everywhere
    /// else"), while that one is live; nil when it is no longer live.
    func revokeOthers(userID: UUID, keeping: UUID, now: Date) async throws -> Int?
}
