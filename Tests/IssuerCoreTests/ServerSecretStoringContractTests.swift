import Foundation
import IssuerCore
import IssuerStorage
import Testing
import TestSupport

/// Where the server secret is kept when none is configured (docs/reference.md, "Configuration"):
/// the first candidate offered is kept, and every later offer, concurrent or not, answers that one.
/// The contract of `ServerSecretStoring`, held by `ServerSecretStore` over PostgreSQL and by
/// `InMemoryServerSecretStore` alike (`StoreBackend`).
@Suite("Server secret storage contract, PostgreSQL and in memory (reference: Configuration)")
struct ServerSecretStoringContractTests {
    static func withStore(_ backend: StoreBackend, _ body: (any ServerSecretStoring) async throws -> Void) async throws {
        switch backend {
        case .postgres: try await TestCluster.withMigratedPool(size: 4) { try await body(ServerSecretStore(pool: $0)) }
        case .memory: try await body(InMemoryServerSecretStore())
        }
    }

    @Test("the first candidate offered is kept; a later one gets it back", arguments: StoreBackend.allCases)
    func firstKept(backend: StoreBackend) async throws {
        try await Self.withStore(backend) { store in
            let first = [UInt8](repeating: 1, count: 32)
            let second = [UInt8](repeating: 2, count: 32)
            let kept = try await store.secret(offering: first)
            #expect(kept == first)
            let afterSecond = try await store.secret(offering: second)
            #expect(afterSecond == first, "a later offer gets the kept secret back")
            let again = try await store.secret(offering: first)
            #expect(again == first)
        }
    }

    @Test("eight first offers at once agree on one of them", arguments: StoreBackend.allCases)
    func concurrentFirstOffers(backend: StoreBackend) async throws {
        try await Self.withStore(backend) { store in
            let candidates = (1...8).map { [UInt8](repeating: UInt8($0), count: 32) }
            let answers = try await withThrowingTaskGroup(of: [UInt8].self) { group in
                for candidate in candidates { group.addTask { try await store.secret(offering: candidate) } }
                return try await group.reduce(into: Set<[UInt8]>()) { $0.insert($1) }
            }
            #expect(answers.count == 1)
            #expect(candidates.contains(answers.first ?? []))
        }
    }
}
