import Foundation
import Logging

/// Deletes an account as docs/reference.md, "Account deletion" says: in one transaction, the user's data, identities and
/// every session (with their refresh tokens) go, an audit record (internal id, when, why; nothing
/// personal) is written, and every Apple refresh token held is queued for revocation at Apple.
/// After the commit the revocations are tried at once, waiting at most `immediateTimeout`;
/// whatever is left the background worker retries (`AppleRevocationQueue`).
///
/// `DELETE /account`, `issuer users delete`, Apple's `account-delete` notification (which
/// sends nothing to Apple) and Google's `account-purged` event all go through here.
public struct AccountDeletion: Sendable {
    /// Why an account was deleted, as the audit record keeps it.
    public enum Reason: String, Sendable {
        /// docs/reference.md, "Account deletion": the user, through `DELETE /account`.
        case userRequest = "user request"
        /// docs/reference.md, "Admin CLI": an operator, with `issuer users delete`.
        case operatorRequest = "operator request"
        /// docs/reference.md, "Apple notifications": Apple's `account-delete` notification.
        case appleAccountDeleted = "apple account deleted"
        /// docs/reference.md, "Google's account-protection events": Google's `account-purged`, for a user left with no identity.
        case googleAccountPurged = "google account purged"
        /// docs/reference.md, "Facebook's callbacks": a provider's data deletion request, for a user left with no identity.
        case providerDataDeletion = "provider data deletion"
    }

    /// What a deletion did.
    public struct Outcome: Sendable {
        /// The deleted user's internal id (our `sub`).
        public var userID: UUID
        /// Apple tokens queued for revocation.
        public var queuedRevocations: Int
        /// Of those, how many Apple confirmed (or called already invalid) before the answer.
        public var settledRevocations: Int
    }

    private let store: any AccountDeletionStoring
    private let clock: any WallClock
    private let revocations: AppleRevocationQueue
    private let events: any AccountEvents
    private let immediateTimeout: Duration

    /// - Parameter store: `AccountDeletionStore`, which also queues the notices of the providers
    ///   told of a deletion (`DeletionNoticeQueue.providers`).
    /// - Parameter immediateTimeout: docs/reference.md, "Account deletion": the answer waits on Apple for about 2 seconds at most.
    package init(
        store: any AccountDeletionStoring, clock: any WallClock, revocations: AppleRevocationQueue, events: any AccountEvents,
        immediateTimeout: Duration = .seconds(2)
    ) {
        self.store = store
        self.clock = clock
        self.revocations = revocations
        self.events = events
        self.immediateTimeout = immediateTimeout
    }

    /// Deletes the user. With `sessionID`, only if that session of the user is live at the moment
    /// of deletion (`DELETE /account`'s bearer token); nil when there was nothing to delete.
    public func delete(userID: UUID, sessionID: UUID? = nil, reason: Reason, logger: Logger) async throws -> Outcome? {
        let now = clock.now
        guard let claimed = try await store.delete(userID: userID, sessionID: sessionID, reason: reason, now: now) else { return nil }
        events.accountDeleted(reason: reason.rawValue)
        logger.notice("account deleted", metadata: [
            "user": .identifier(userID), "reason": "\(reason.rawValue)", "apple_revocations": "\(claimed.count)",
        ])
        guard !claimed.isEmpty else { return Outcome(userID: userID, queuedRevocations: 0, settledRevocations: 0) }
        await revocations.attempt(claimed, timeout: immediateTimeout, logger: logger)
        // The deletion is committed: a failure to count must not turn it into an error.
        let settled = (try? await store.settledRevocations(userID: userID)) ?? 0
        return Outcome(userID: userID, queuedRevocations: claimed.count, settledRevocations: settled)
    }
}
