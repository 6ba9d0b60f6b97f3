import Foundation
import Logging

/// Apple refresh tokens waiting to be revoked at Apple after their account was deleted (docs/reference.md, "Account deletion").
/// Each is a row, queued in the deletion's own transaction, so a crash or an Apple outage loses
/// none (docs/design.md, "Apple and remote parties"). Any process may send one: `AppleRevocationStore`
/// claims a row for one process and pushes its next attempt past the send's deadline (`lease`), so
/// two processes never send the same revocation at once. Retries back off up to a day between tries,
/// and end when Apple accepts the revocation or answers that the token is already invalid.
public struct AppleRevocationQueue: Sendable {
    /// A claimed row, ready to send.
    package struct Claimed: Sendable {
        var id: UUID
        var userID: UUID
        var clientID: String
        var sealed: [UInt8]
        var attempts: Int

        package init(id: UUID, userID: UUID, clientID: String, sealed: [UInt8], attempts: Int) {
            self.id = id
            self.userID = userID
            self.clientID = clientID
            self.sealed = sealed
            self.attempts = attempts
        }
    }

    /// One row as `issuer apple revocations` lists it; never the token.
    public struct Entry: Sendable {
        /// The queue row.
        public var id: UUID
        /// The deleted user's internal id.
        public var userID: UUID
        /// The Apple `client_id` the token was issued to.
        public var clientID: String
        /// When the deletion queued it.
        public var createdAt: Date
        /// Sends tried so far.
        public var attempts: Int
        /// When the next try is due; meaningless once finished.
        public var nextAttemptAt: Date
        /// Why the last try failed, if it did.
        public var lastError: String?
        /// When it ended, nil while pending.
        public var finishedAt: Date?
        /// `revoked` or `already_invalid` once finished.
        public var outcome: String?

        package init(
            id: UUID, userID: UUID, clientID: String, createdAt: Date, attempts: Int, nextAttemptAt: Date, lastError: String? = nil,
            finishedAt: Date? = nil, outcome: String? = nil
        ) {
            self.id = id
            self.userID = userID
            self.clientID = clientID
            self.createdAt = createdAt
            self.attempts = attempts
            self.nextAttemptAt = nextAttemptAt
            self.lastError = lastError
            self.finishedAt = finishedAt
            self.outcome = outcome
        }
    }

    /// How long a claimed row is left alone: longer than any send's deadline.
    public static let lease: TimeInterval = 60
    /// docs/reference.md, "Account deletion": backoff grows to at most a day between tries.
    public static let maximumBackoff: TimeInterval = 24 * 3600
    /// Rows claimed per worker pass.
    public static let batchSize = 20

    /// The wait after `attempts` failed tries: 30 s, doubling, at most a day.
    public static func backoff(afterAttempts attempts: Int) -> TimeInterval {
        min(30 * pow(2, Double(max(0, min(attempts, 30) - 1))), maximumBackoff)
    }

    private let store: any AppleRevocationStoring
    private let vault: AppleTokenVault
    private let api: AppleTokenAPI?
    private let clock: any WallClock
    private let events: any AccountEvents

    /// - Parameter api: Apple's endpoints; nil without Apple developer credentials, when queued
    ///   rows wait until a process that has them picks them up.
    package init(store: any AppleRevocationStoring, vault: AppleTokenVault, api: AppleTokenAPI?, clock: any WallClock, events: any AccountEvents) {
        self.store = store
        self.vault = vault
        self.api = api
        self.clock = clock
        self.events = events
    }

    /// Revokes at once a token Apple gave us that no user may hold (redeemed after its account was
    /// deleted, or a code that was another Apple account's): queued as a row already claimed and
    /// sent now, so an Apple outage only delays it. When even the row cannot be written (the
    /// database failing), it is sent once without one, so a token is never left held by no one
    /// without a try.
    func revokeUnheld(refreshToken: String, clientID: String, userID: UUID, timeout: Duration, logger: Logger) async {
        let now = clock.now
        let claimed: [Claimed]
        do {
            claimed = try await store.queueClaimed(
                userID: userID, clientID: clientID, sealed: try vault.seal(refreshToken, kind: .refreshToken, userID: userID), now: now,
                leaseEnd: now.addingTimeInterval(Self.lease))
        } catch {
            let outcome = await api?.revoke(refreshToken: refreshToken, clientID: clientID, timeout: timeout)
            events.appleRevocation(outcome: outcome == .revoked ? "revoked" : outcome == .alreadyInvalid ? "already_invalid" : "failed")
            logger.error("an Apple token no user holds could not be queued for revocation; sent once without a row", metadata: [
                "user": .identifier(userID), "client_id": "\(clientID)", "error": "\(error)",
                "outcome": "\(outcome.map { "\($0)" } ?? "no Apple credentials")",
            ])
            return
        }
        await attempt(claimed, timeout: timeout, logger: logger)
    }

    /// One worker pass: claims the due rows and sends each once. Answers how many were tried.
    @discardableResult
    public func retryDue(timeout: Duration = .seconds(5), logger: Logger) async throws -> Int {
        guard api != nil else { return 0 }
        let now = clock.now
        let claimed = try await store.claimDue(now: now, leaseEnd: now.addingTimeInterval(Self.lease), limit: Self.batchSize)
        await attempt(claimed, timeout: timeout, logger: logger)
        return claimed.count
    }

    /// Sends claimed rows, in parallel, each once within `timeout`, and records each outcome.
    func attempt(_ claimed: [Claimed], timeout: Duration, logger: Logger) async {
        await withTaskGroup(of: Void.self) { group in
            for item in claimed {
                group.addTask { await attempt(item, timeout: timeout, logger: logger) }
            }
        }
    }

    private func attempt(_ item: Claimed, timeout: Duration, logger: Logger) async {
        let outcome: AppleTokenAPI.Revocation
        if let api {
            do {
                let token = try vault.open(item.sealed, kind: .refreshToken, userID: item.userID)
                outcome = await api.revoke(refreshToken: token, clientID: item.clientID, timeout: timeout)
            } catch {
                outcome = .failed("the stored token does not decrypt (was ISSUER_SECRET changed?)")
            }
        } else {
            outcome = .failed("Apple developer credentials are not configured in this process")
        }
        let metadata: Logger.Metadata = [
            "revocation": .identifier(item.id), "user": .identifier(item.userID),
            "client_id": "\(item.clientID)", "attempt": "\(item.attempts)",
        ]
        let now = clock.now
        do {
            switch outcome {
            case .revoked, .alreadyInvalid:
                let name = outcome == .revoked ? "revoked" : "already_invalid"
                try await store.finish(id: item.id, at: now, outcome: name)
                events.appleRevocation(outcome: name)
                logger.info(
                    outcome == .revoked ? "Apple token revoked" : "Apple token was already invalid; revocation ends",
                    metadata: metadata)
            case .failed(let reason):
                let next = now.addingTimeInterval(Self.backoff(afterAttempts: item.attempts))
                try await store.reschedule(id: item.id, next: next, error: reason)
                events.appleRevocation(outcome: "failed")
                logger.warning("Apple token revocation failed; will retry", metadata: metadata.merging([
                    "error": "\(reason)", "next_attempt": "\(next)",
                ]) { $1 })
            }
        } catch {
            // The row stays claimed until its lease ends; then any process retries it.
            logger.error("cannot record an Apple revocation's outcome", metadata: metadata.merging(["error": "\(error)"]) { $1 })
        }
    }

    /// How long a finished row (internal id, client, times, outcome; no token) is kept for operators.
    public static let finishedRetention: Duration = .seconds(90 * 24 * 3600)

    /// Deletes finished rows older than `finishedRetention`, one small batch (the worker calls it every pass).
    public func prune() async throws {
        try await store.pruneFinished(before: clock.now.addingTimeInterval(-Self.finishedRetention.timeInterval))
    }

    /// Revocations not yet finished (docs/reference.md, "Operations" queue depth).
    public func depth() async throws -> Int {
        try await store.depth()
    }
}
