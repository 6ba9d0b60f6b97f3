import Crypto
import Foundation
import Logging

/// The one verification step of every account-changing request (docs/reference.md, "Two proofs
/// of one session"): the bearer access token (RFC 6750) **and** that session's refresh token.
/// Access tokens travel to every backend and into their logs; refresh tokens stay in the app, so
/// an access token alone never deletes an account or changes its sign-in methods.
///
/// Steps, for a bearer the request's authentication step already verified: refresh token present
/// and well formed → one read → `SessionProofVerdict` → on theft, revoke the session. The refresh token is not rotated. Whether the session is still
/// live when the change is written is the change's own statement to decide (a revocation may land
/// between this read and that write).
public struct SessionProof: Sendable {
    /// Who both proofs name.
    public struct Proven: Sendable, Equatable {
        /// `sub`, as our user id.
        public var userID: UUID
        /// `sid`: the session both proofs belong to.
        public var sessionID: UUID
    }

    private let store: any SessionProofStoring
    private let revocation: any SessionRevocationStoring
    private let successorKey: [UInt8]
    private let clock: any WallClock
    private let grace: Duration
    private let events: any AccountEvents

    /// - Parameters:
    ///   - secret: the server secret, whose `refresh-token-successor` subkey the refresh grant derives successors under.
    ///   - grace: `ISSUER_REFRESH_REUSE_GRACE`, as the refresh grant applies it.
    public init(
        store: any SessionProofStoring, revocation: any SessionRevocationStoring, secret: ServerSecret, clock: any WallClock, grace: Duration, events: any AccountEvents
    ) {
        self.store = store
        self.revocation = revocation
        self.successorKey = RefreshToken.successorKey(from: secret)
        self.clock = clock
        self.grace = grace
        self.events = events
    }

    /// What a change answers when the statement that makes it finds the proving session no longer
    /// live (revoked or ended after the proof was read): nothing changed, and the access token
    /// proves nothing, as account deletion answers the same race (docs/reference.md, "Two proofs of one session").
    public static let sessionEnded = OAuthError(.invalidToken, "The access token is invalid.", debug: "session revoked, expired or deleted")

    /// Both proofs, or the error to answer: `invalid_request` without a refresh token,
    /// `invalid_grant` for one that fails.
    /// - Parameters:
    ///   - bearer: the first proof, the access token as the request's authentication step verified it.
    ///   - refreshToken: the request body's `refresh_token`, nil when absent.
    public func prove(bearer: AccessTokenVerifier.Bearer, refreshToken: String?, logger: Logger) async throws(OAuthError) -> Proven {
        guard let refreshToken, !refreshToken.isEmpty else {
            throw .invalidRequest("The refresh_token parameter is required: this request needs the session's refresh token as well as its access token.")
        }
        guard RefreshToken.isWellFormed(refreshToken) else {
            throw .invalidGrant("The refresh token is invalid.", debug: "malformed refresh token")
        }
        let presented = RefreshToken(value: refreshToken)
        let now = clock.now
        let record: SessionProofRecord?
        do {
            record = try await store.proofRecord(tokenHash: presented.hash, now: now)
        } catch {
            throw .storage(error)
        }
        let successor = presented.successor(key: SymmetricKey(data: successorKey))
        switch SessionProofVerdict.decide(
            record: record, bearerSession: bearer.sessionID, successorHash: successor.hash, now: now, grace: grace)
        {
        case .proven:
            return Proven(userID: bearer.userID, sessionID: bearer.sessionID)
        case .reuse(let sessionID):
            events.refreshReuseDetected()
            logger.warning("refresh token reuse detected; session revoked", metadata: ["sid": .identifier(sessionID), "sub": .identifier(bearer.userID)])
            do {
                try await revocation.revoke(sessionID: sessionID, reason: "refresh token reuse", at: now)
            } catch {
                throw .storage(error)
            }
            throw .invalidGrant("The refresh token is invalid.", debug: "reuse of a spent refresh token")
        case .refused(let reason):
            throw .invalidGrant("The refresh token is invalid.", debug: reason)
        }
    }
}
