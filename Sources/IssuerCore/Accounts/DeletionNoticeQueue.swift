import Foundation
import Logging

/// Sends the notices providers get when an account with their identity is deleted
/// (docs/reference.md, "Account deletion"): each a row queued in the deletion's own transaction,
/// so a crash or a provider's outage loses none, sent by any process's background worker through
/// the provider's connector (`AccountDeletionConnector`) with the backoff of Apple's revocations,
/// until the provider accepts it or says there is nothing left to forget.
public struct DeletionNoticeQueue: Sendable {
    /// A claimed row, ready to send.
    package struct Claimed: Sendable {
        var id: UUID
        var userID: UUID
        var provider: String
        var subject: String
        var attempts: Int

        package init(id: UUID, userID: UUID, provider: String, subject: String, attempts: Int) {
            self.id = id
            self.userID = userID
            self.provider = provider
            self.subject = subject
            self.attempts = attempts
        }
    }

    /// How long a finished row (internal id, provider, times, outcome) is kept for operators.
    public static let finishedRetention: TimeInterval = 90 * 24 * 3600

    private let store: any DeletionNoticeStoring
    /// By provider id.
    private let connectors: [String: any AccountDeletionConnector]
    private let clock: any WallClock

    package init(store: any DeletionNoticeStoring, connectors: [any AccountDeletionConnector], clock: any WallClock) {
        self.store = store
        self.connectors = Dictionary(connectors.map { ($0.provider, $0) }, uniquingKeysWith: { first, _ in first })
        self.clock = clock
    }

    /// The providers a deletion queues notices for.
    public var providers: [String] { connectors.keys.sorted() }

    /// One worker pass: claims the due rows and sends each once, in parallel. Answers how many were tried.
    @discardableResult
    public func retryDue(logger: Logger) async throws -> Int {
        guard !connectors.isEmpty else { return 0 }
        let now = clock.now
        let claimed = try await store.claimDue(
            now: now, leaseEnd: now.addingTimeInterval(AppleRevocationQueue.lease), limit: AppleRevocationQueue.batchSize)
        await withTaskGroup(of: Void.self) { group in
            for item in claimed {
                group.addTask { await send(item, logger: logger) }
            }
        }
        return claimed.count
    }

    private func send(_ item: Claimed, logger: Logger) async {
        let outcome = await connectors[item.provider]?.accountDeleted(subject: item.subject)
            ?? .failed("no provider \(item.provider) is configured in this process")
        // Our user id only: the provider's id of the person stays out of the log.
        let metadata: Logger.Metadata = [
            "notice": .identifier(item.id), "user": .identifier(item.userID), "provider": "\(item.provider)", "attempt": "\(item.attempts)",
        ]
        let now = clock.now
        do {
            switch outcome {
            case .done, .alreadyGone:
                try await store.finish(id: item.id, at: now, outcome: outcome == .done ? "done" : "already_gone")
                logger.info("provider told of an account deletion", metadata: metadata.merging(["outcome": "\(outcome)"]) { $1 })
            case .failed(let reason):
                let next = now.addingTimeInterval(AppleRevocationQueue.backoff(afterAttempts: item.attempts))
                try await store.reschedule(id: item.id, next: next, error: reason)
                logger.warning("telling a provider of an account deletion failed; will retry", metadata: metadata.merging([
                    "error": "\(reason)", "next_attempt": "\(next)",
                ]) { $1 })
            }
        } catch {
            // The row stays claimed until its lease ends; then any process retries it.
            logger.error("cannot record a deletion notice's outcome", metadata: metadata.merging(["error": "\(error)"]) { $1 })
        }
    }

    /// Notices not yet sent.
    public func depth() async throws -> Int {
        try await store.depth()
    }

    /// Deletes finished rows older than `finishedRetention`, one small batch (the worker calls it every pass).
    public func prune() async throws {
        try await store.pruneFinished(before: clock.now.addingTimeInterval(-Self.finishedRetention))
    }
}
