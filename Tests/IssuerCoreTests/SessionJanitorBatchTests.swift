import Foundation
@testable import IssuerCore
import Synchronization
import Testing

/// The janitor's batching against a fake store (docs/reference.md, "Refresh tokens and sessions"):
/// what it asks the store to delete, and when it stops. The statements themselves are tested
/// against PostgreSQL in `SessionJanitorStoringContractTests`.
@Suite("Janitor batching")
struct SessionJanitorBatchTests {
    /// Answers each call with the next count of its kind (0 once they run out), and records the calls.
    final class FakeStore: SessionJanitorStoring {
        struct Call: Equatable {
            var rows: ExpiredRows
            var cutoff: Date
            var limit: Int
        }

        private let state: Mutex<(counts: [ExpiredRows: [Int]], calls: [Call])>

        init(_ counts: [ExpiredRows: [Int]]) {
            state = Mutex((counts, []))
        }

        var calls: [Call] { state.withLock { $0.calls } }

        func deleteExpired(_ rows: ExpiredRows, before cutoff: Date, limit: Int) async throws -> Int {
            state.withLock { state in
                state.calls.append(Call(rows: rows, cutoff: cutoff, limit: limit))
                return state.counts[rows]?.isEmpty == false ? state.counts[rows]!.removeFirst() : 0
            }
        }
    }

    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("batches until one comes back short, tokens before sessions before spent states before DPoP proofs, all before now less the margin")
    func batchesUntilShort() async throws {
        let store = FakeStore([.refreshTokens: [10, 10, 3], .sessions: [10, 0], .spentAuthorizationStates: [2]])
        var janitor = SessionJanitor(store: store)
        janitor.batchSize = 10
        janitor.margin = .seconds(600)
        let deleted = try await janitor.sweep(now: now)
        #expect(deleted.refreshTokens == 23)
        #expect(deleted.sessions == 10)
        #expect(store.calls.map(\.rows) == [.refreshTokens, .refreshTokens, .refreshTokens, .sessions, .sessions, .spentAuthorizationStates, .dpopProofs])
        #expect(store.calls.allSatisfy { $0.cutoff == now.addingTimeInterval(-600) && $0.limit == 10 })
    }

    @Test("stops at maxBatches even while every batch comes back full")
    func stopsAtMaxBatches() async throws {
        let store = FakeStore([.refreshTokens: Array(repeating: 5, count: 10), .sessions: Array(repeating: 5, count: 10)])
        var janitor = SessionJanitor(store: store)
        janitor.batchSize = 5
        let deleted = try await janitor.sweep(now: now, maxBatches: 3)
        #expect(deleted.refreshTokens == 15)
        #expect(deleted.sessions == 15)
        #expect(store.calls.filter { $0.rows == .refreshTokens }.count == 3)
        #expect(store.calls.filter { $0.rows == .spentAuthorizationStates }.count == 1, "an empty first batch ends that kind")
    }

    @Test("a sweep that stops at maxBatches with its last batch full says it did not finish")
    func reportsUnfinished() async throws {
        let full = FakeStore([.dpopProofs: [5, 5, 5]])
        var janitor = SessionJanitor(store: full)
        janitor.batchSize = 5
        #expect(try await janitor.sweep(now: now, maxBatches: 3).finished == false)
        let short = FakeStore([.dpopProofs: [5, 5, 4]])
        janitor = SessionJanitor(store: short)
        janitor.batchSize = 5
        #expect(try await janitor.sweep(now: now, maxBatches: 3).finished == true)
    }

    @Test("a backlog bigger than one sweep is swept again after a pause until a sweep finishes, not left for the next minute")
    func sweepsBacklogUntilFinished() async throws {
        // 7 full batches of expired DPoP proofs and 2 of tokens: three sweeps of at most 3 batches each.
        let store = FakeStore([.dpopProofs: Array(repeating: 5, count: 7) + [1], .refreshTokens: [5, 5]])
        var janitor = SessionJanitor(store: store)
        janitor.batchSize = 5
        let deleted = try await janitor.sweepBacklog(now: { self.now }, pause: .milliseconds(1), maxBatches: 3)
        #expect(deleted == JanitorSweep(refreshTokens: 10, sessions: 0, authorizationStates: 0, dpopProofs: 36, finished: true))
        #expect(store.calls.filter { $0.rows == .dpopProofs }.count == 8)
        #expect(store.calls.filter { $0.rows == .refreshTokens }.count == 3 + 1 + 1, "every sweep asks again")
    }

    @Test("with no batch to run, a sweep asks nothing and is finished, so a backlog loop cannot spin")
    func noBatchesIsFinished() async throws {
        let store = FakeStore([.dpopProofs: [5]])
        var janitor = SessionJanitor(store: store)
        #expect(try await janitor.sweepBacklog(now: { self.now }, pause: .milliseconds(1), maxBatches: 0) == JanitorSweep())
        janitor.batchSize = 0
        #expect(try await janitor.sweep(now: now).finished)
        #expect(store.calls.isEmpty)
    }

    @Test("a cancelled backlog loop starts no other sweep")
    func cancelledStopsSweeping() async throws {
        let store = FakeStore([.dpopProofs: Array(repeating: 5, count: 100)])
        var janitor = SessionJanitor(store: store)
        janitor.batchSize = 5
        let configured = janitor
        let now = now
        let task = Task { try await configured.sweepBacklog(now: { now }, pause: .seconds(3600), maxBatches: 1) }
        // The first sweep ends unfinished, so the loop waits its pause, which cancelling ends.
        while store.calls.isEmpty { await Task.yield() }
        task.cancel()
        let deleted = try await task.value
        #expect(!deleted.finished && deleted.dpopProofs == 5)
        #expect(store.calls.filter { $0.rows == .dpopProofs }.count == 1)
    }
}
