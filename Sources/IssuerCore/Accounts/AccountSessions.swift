import Foundation
import Logging

/// The user's signed-in devices (docs/reference.md, "Signed-in devices"): `GET /account/sessions`
/// lists the live sessions with the bearer's own marked `current`; revoking one
/// (`DELETE /account/sessions/{sid}`) or every other one (`DELETE /account/sessions`, "sign out
/// everywhere else") needs the two proofs of one session (`SessionProof`), as every account
/// change does.
public struct AccountSessions: Sendable {
    private let store: any AccountSessionsStoring
    private let clock: any WallClock

    package init(store: any AccountSessionsStoring, clock: any WallClock) {
        self.store = store
        self.clock = clock
    }

    /// The user's live sessions and which one is the bearer's. An access token whose session is
    /// no longer live is `invalid_token`, as at `/userinfo`.
    public func list(bearer: AccessTokenVerifier.Bearer) async throws(OAuthError) -> (sessions: [AccountSession], current: UUID) {
        let sessions: [AccountSession]
        do {
            sessions = try await store.live(userID: bearer.userID, now: clock.now)
        } catch {
            throw .storage(error)
        }
        guard sessions.contains(where: { $0.sessionID == bearer.sessionID }) else {
            throw OAuthError(.invalidToken, "The access token is invalid.", debug: "session revoked or expired")
        }
        return (sessions, bearer.sessionID)
    }

    /// Revokes one of the user's live sessions; a `sid` that is not one is `404` and revokes nothing.
    public func revoke(sessionID: String, by proven: SessionProof.Proven, logger: Logger) async throws(OAuthError) {
        var revoked: Bool? = false
        if let id = UUID(uuidString: sessionID) {
            do {
                revoked = try await store.revoke(sessionID: id, userID: proven.userID, provingSessionID: proven.sessionID, now: clock.now)
            } catch {
                throw .storage(error)
            }
        }
        guard let revoked else { throw SessionProof.sessionEnded }
        guard revoked else { throw OAuthError(.invalidRequest, "No such live session of this user.", status: 404) }
        logger.info("session revoked by its user", metadata: ["sub": .identifier(proven.userID), "sid": "\(sessionID.lowercased())"])
    }

    /// Revokes every live session of the user but the one both proofs belong to.
    public func revokeOthers(_ proven: SessionProof.Proven, logger: Logger) async throws(OAuthError) {
        let revoked: Int?
        do {
            revoked = try await store.revokeOthers(userID: proven.userID, keeping: proven.sessionID, now: clock.now)
        } catch {
            throw .storage(error)
        }
        guard let count = revoked else { throw SessionProof.sessionEnded }
        logger.info("sessions revoked by their user: signed out everywhere else", metadata: ["sub": .identifier(proven.userID), "count": "\(count)"])
    }
}
