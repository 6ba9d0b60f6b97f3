import Crypto
import Foundation
@testable import IssuerCore
import Synchronization
import Testing

/// Which secret `ServerSecret.load` settles on, against a fake store (docs/reference.md,
/// "Configuration"); the store's statement is tested against PostgreSQL in `ServerSecretTests`.
@Suite("Server secret loading")
struct ServerSecretLoadingTests {
    @Test("a configured secret is used and the store is never asked")
    func configuredWins() async throws {
        let store = InMemoryServerSecretStore(kept: [UInt8](repeating: 9, count: 32))
        let configured = [UInt8](repeating: 7, count: 32)
        let secret = try await ServerSecret.load(configured: Secret(configured), store: store)
        #expect(secret.key(for: "label") == ServerSecret(bytes: configured).key(for: "label"))
        #expect(store.offers.isEmpty)
    }

    @Test("without one, the kept secret wins over the fresh 256-bit candidate offered")
    func keptWins() async throws {
        let kept = [UInt8](repeating: 9, count: 32)
        let store = InMemoryServerSecretStore(kept: kept)
        let secret = try await ServerSecret.load(configured: nil, store: store)
        #expect(secret.key(for: "label") == ServerSecret(bytes: kept).key(for: "label"))
        #expect(store.offers.count == 1)
        #expect(store.offers.first?.count == 32)
        #expect(store.offers.first != kept)
    }

    @Test("with none kept, two loads agree on the first candidate")
    func firstCandidateKept() async throws {
        let store = InMemoryServerSecretStore()
        let first = try await ServerSecret.load(configured: nil, store: store)
        let second = try await ServerSecret.load(configured: nil, store: store)
        #expect(first.key(for: "label") == second.key(for: "label"))
        #expect(store.offers.count == 2 && store.offers[0] != store.offers[1])
    }
}
