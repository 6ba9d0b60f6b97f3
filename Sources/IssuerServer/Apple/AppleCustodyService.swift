import IssuerCore
import IssuerStorage
import Logging
import ServiceLifecycle

/// The background worker every process runs (docs/reference.md, "Apple token custody", docs/design.md, "Apple and remote parties"): retries pending Apple
/// code redemptions while their codes live, verifies Apple's answers held while its keys could not
/// be fetched, retries queued Apple revocations and providers' deletion notices with backoff, forgets old
/// received event ids (Apple's and Google's `jti`s) and finished revocations, and keeps the queue-depth gauge fresh. The stores
/// claim each row for one process and let the others skip it, so any number of processes share
/// the work without sending anything twice at once.
struct AppleCustodyService: Service {
    let custody: AppleTokenCustody
    let revocations: AppleRevocationQueue
    /// docs/reference.md, "Account deletion": the providers' notices of deletions, sent in the same pass.
    let notices: DeletionNoticeQueue
    /// The received event ids, forgotten past their retention in the same pass.
    let receivedEvents: ReceivedEventStore
    let dependencies: IssuerDependencies

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while (try? await Task.sleep(for: dependencies.appleWorkerInterval)) != nil {
                await pass()
            }
        }
    }

    /// One round of every job; a failing one is logged and retried at the next round.
    func pass() async {
        let logger = dependencies.logger
        do {
            try await custody.retryPending(logger: logger)
            try await custody.verifyHeld(logger: logger)
            try await revocations.retryDue(logger: logger)
            dependencies.metrics.appleRevocationQueue(depth: try await revocations.depth())
            try await receivedEvents.prune(now: dependencies.clock.now)
            try await revocations.prune()
        } catch is CancellationError {
            // Shutting down.
        } catch {
            logger.warning("Apple custody worker pass failed; will retry", metadata: ["error": "\(error)"])
        }
        do {
            try await notices.retryDue(logger: logger)
            dependencies.metrics.recordDeletionNoticeQueue(depth: try await notices.depth())
            try await notices.prune()
        } catch is CancellationError {
            // Shutting down.
        } catch {
            logger.warning("deletion notice worker pass failed; will retry", metadata: ["error": "\(error)"])
        }
    }
}
