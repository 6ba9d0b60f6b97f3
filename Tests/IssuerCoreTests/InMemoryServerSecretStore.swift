import IssuerCore
import Synchronization

/// `ServerSecretStoring` in memory, held to the same contract as `ServerSecretStore`
/// (`ServerSecretStoringContractTests`): it keeps the first secret offered, as the table's one row
/// does, and records each offer for the loading decisions' tests.
final class InMemoryServerSecretStore: ServerSecretStoring {
    private let state: Mutex<(kept: [UInt8]?, offers: [[UInt8]])>

    init(kept: [UInt8]? = nil) {
        state = Mutex((kept, []))
    }

    var offers: [[UInt8]] { state.withLock { $0.offers } }

    func secret(offering candidate: [UInt8]) async throws -> [UInt8] {
        state.withLock { state in
            state.offers.append(candidate)
            if state.kept == nil { state.kept = candidate }
            return state.kept!
        }
    }
}
