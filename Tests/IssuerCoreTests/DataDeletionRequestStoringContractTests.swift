import Foundation
import IssuerCore
import IssuerStorage
import Testing
import TestSupport

/// A provider's data deletion requests (docs/reference.md, "Facebook's callbacks"): recorded once
/// under their confirmation code, so a request delivered twice keeps its first time and the status
/// page says when it was received. The contract of `DataDeletionRequestStoring`, held by
/// `DataDeletionRequestStore` over PostgreSQL and by `InMemoryDataDeletionRequestStore` alike
/// (`StoreBackend`).
@Suite("Data deletion request storage contract, PostgreSQL and in memory (reference: Facebook's callbacks)")
struct DataDeletionRequestStoringContractTests {
    static let first = Date(timeIntervalSince1970: 1_800_000_000)

    static func withStore(_ backend: StoreBackend, _ body: (any DataDeletionRequestStoring) async throws -> Void) async throws {
        switch backend {
        case .postgres: try await TestCluster.withMigratedPool(size: 4) { try await body(DataDeletionRequestStore(pool: $0)) }
        case .memory: try await body(InMemoryDataDeletionRequestStore())
        }
    }

    @Test("a code never answered has no time; a recorded one has its first", arguments: StoreBackend.allCases)
    func recordedOnce(backend: StoreBackend) async throws {
        try await Self.withStore(backend) { store in
            let never = try await store.receivedAt(code: "c-1")
            #expect(never == nil)
            let recorded = try await store.record(code: "c-1", provider: "facebook", receivedAt: Self.first)
            #expect(recorded == Self.first)
            let later = Self.first.addingTimeInterval(3600)
            let redelivered = try await store.record(code: "c-1", provider: "facebook", receivedAt: later)
            #expect(redelivered == Self.first, "a redelivery keeps the first time")
            let read = try await store.receivedAt(code: "c-1")
            #expect(read == Self.first)
            let other = try await store.record(code: "c-2", provider: "facebook", receivedAt: later)
            #expect(other == later)
            let otherRead = try await store.receivedAt(code: "c-2")
            #expect(otherRead == later)
        }
    }

    @Test("eight deliveries of one request at once agree on one time, round after round", arguments: StoreBackend.allCases)
    func concurrentDeliveries(backend: StoreBackend) async throws {
        try await Self.withStore(backend) { store in
            // Several rounds: the race between two first inserts is narrow.
            for round in 0..<10 {
                let code = "race-\(round)"
                let times = (0..<8).map { Self.first.addingTimeInterval(Double($0)) }
                let answers = try await withThrowingTaskGroup(of: Date.self) { group in
                    for time in times { group.addTask { try await store.record(code: code, provider: "facebook", receivedAt: time) } }
                    return try await group.reduce(into: Set<Date>()) { $0.insert($1) }
                }
                #expect(answers.count == 1, "round \(round)")
                let kept = try await store.receivedAt(code: code)
                #expect(kept == answers.first, "round \(round)")
            }
        }
    }
}
