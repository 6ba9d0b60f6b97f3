import Foundation
import IssuerCore
import Synchronization

/// `DataDeletionRequestStoring` in memory, held to the same contract as
/// `DataDeletionRequestStore` (`DataDeletionRequestStoringContractTests`): a request is recorded
/// once under its code, and keeps its first time.
final class InMemoryDataDeletionRequestStore: DataDeletionRequestStoring {
    private let received = Mutex<[String: (provider: String, at: Date)]>([:])

    func record(code: String, provider: String, receivedAt: Date) async throws -> Date {
        received.withLock { received in
            if let first = received[code] { return first.at }
            received[code] = (provider, receivedAt)
            return receivedAt
        }
    }

    func receivedAt(code: String) async throws -> Date? {
        received.withLock { $0[code]?.at }
    }
}
