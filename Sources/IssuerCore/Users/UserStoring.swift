import Foundation

/// What the endpoints that answer claims about a user ask of storage (docs/reference.md,
/// "UserInfo"): the user as stored now, through a session that is still theirs and live.
public protocol UserStoring: Sendable {
    /// The user, if `sessionID` is theirs and still live at `now` (not revoked, not expired); nil
    /// for a revoked, expired or deleted session, or a session of another user.
    func user(id userID: UUID, liveSession sessionID: UUID, at now: Date) async throws -> UserProfile?
}
