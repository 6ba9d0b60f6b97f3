import Foundation
@testable import IssuerCore
import Synchronization
import Testing
import TestSupport

@Suite("One remote document's cache (reference: Faults and bad input)")
struct RemoteDocumentCacheTests {
    typealias Unavailable = RemoteDocumentCache<Int>.Unavailable
    let clock = ManualClock()

    func cache(_ fetcher: CountingFetcher) -> RemoteDocumentCache<Int> {
        RemoteDocumentCache(policy: RemoteJWKSPolicy(), clock: clock) { try await fetcher.fetch() }
    }

    @Test("many concurrent misses share one fetch")
    func singleFlight() async throws {
        let fetcher = CountingFetcher()
        fetcher.hold()
        let cache = cache(fetcher)
        let started = CountingFetcher.Counter()
        let served = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    started.increment()
                    return try await cache.document()
                }
            }
            // Every caller has started and the one fetch is held: the others find it in flight.
            while started.value < 50 || fetcher.fetchCount == 0 { await Task.yield() }
            for _ in 0..<100 { await Task.yield() }
            fetcher.release()
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(served == Array(repeating: 1, count: 50))
        #expect(fetcher.fetchCount == 1)
    }

    @Test("fresh for the document's max-age within bounds, then fetched again", arguments: [
        (Optional(3600), 3600.0), (Optional(10), 300.0), (Optional(999_999), 86_400.0), (nil, 300.0),
    ] as [(Int?, Double)])
    func refetchAfterMaxAge(maxAge: Int?, lifetime: Double) async throws {
        let fetcher = CountingFetcher(maxAge: maxAge)
        let cache = cache(fetcher)
        #expect(try await cache.document() == 1)
        clock.advance(by: lifetime - 1)
        #expect(try await cache.document() == 1, "still fresh")
        #expect(fetcher.fetchCount == 1)
        clock.advance(by: 2)
        #expect(try await cache.document() == 2, "fetched again once stale")
        #expect(fetcher.fetchCount == 2)
    }

    @Test("stale is served while fetching fails, up to the stale limit; the failure's reason is kept past it")
    func staleOnError() async throws {
        let fetcher = CountingFetcher(maxAge: 3600)
        let cache = cache(fetcher)
        #expect(try await cache.document() == 1)
        fetcher.fail(.timedOut)
        clock.advance(by: 2 * 86_400)
        #expect(try await cache.document() == 1, "stale, the provider down")
        #expect(fetcher.fetchCount == 2)
        clock.advance(by: 10)
        #expect(try await cache.document() == 1, "inside the cooldown: stale, not asked again")
        #expect(fetcher.fetchCount == 2)
        clock.advance(by: 5 * 86_400 - 9)
        do throws(Unavailable) {
            _ = try await cache.document()
            Issue.record("served past the stale limit")
        } catch {
            guard case .expired(let fetchFailure?, let lastFailure?) = error else { Issue.record("\(error)"); return }
            #expect(RemoteFetchFailure(of: fetchFailure) == .timedOut && RemoteFetchFailure(of: lastFailure) == .timedOut)
        }
        #expect(fetcher.fetchCount == 3)
        clock.advance(by: 10)
        do throws(Unavailable) {
            _ = try await cache.document()
            Issue.record("served past the stale limit")
        } catch {
            guard case .expired(nil, let lastFailure?) = error else { Issue.record("\(error)"); return }
            #expect(RemoteFetchFailure(of: lastFailure) == .timedOut, "inside the cooldown: not tried, the last reason kept")
        }
        #expect(fetcher.fetchCount == 3)
        fetcher.succeed()
        clock.advance(by: 30)
        #expect(try await cache.document() == 4, "recovers when the provider is back")
    }

    @Test("nothing cached: a failed fetch pauses the next, 1 s then 2 s, and callers inside the pause get its reason")
    func pauseAfterFailure() async throws {
        let fetcher = CountingFetcher()
        fetcher.fail(.issuerMismatch)
        let cache = cache(fetcher)
        for (pause, fetches) in [(1.0, 1), (2.0, 2)] {
            do throws(Unavailable) {
                _ = try await cache.document()
                Issue.record("a document from a failing fetch")
            } catch {
                guard case .failed(let failure) = error else { Issue.record("\(error)"); return }
                #expect(RemoteFetchFailure(of: failure) == .issuerMismatch)
            }
            clock.advance(by: pause - 0.25)
            do throws(Unavailable) {
                _ = try await cache.document()
                Issue.record("a document inside the pause")
            } catch {
                guard case .paused(let lastFailure?) = error else { Issue.record("\(error)"); return }
                #expect(RemoteFetchFailure(of: lastFailure) == .issuerMismatch)
            }
            #expect(fetcher.fetchCount == fetches)
            clock.advance(by: 0.25)
        }
        fetcher.succeed()
        #expect(try await cache.document() == 3)
        #expect(fetcher.fetchCount == 3)
    }

    @Test("a fresh document found lacking is fetched again at once, but not twice within the cooldown")
    func cooldownWhenLacking() async throws {
        let fetcher = CountingFetcher()
        let cache = cache(fetcher)
        #expect(try await cache.document() == 1)
        clock.advance(by: 31)
        #expect(try await cache.document { $0 >= 2 } == 2, "looked again at once")
        for _ in 0..<5 {
            do throws(Unavailable) {
                _ = try await cache.document { $0 >= 3 }
                Issue.record("fetched inside the cooldown")
            } catch {
                guard case .coolingDown(nil) = error else { Issue.record("\(error)"); return }
            }
        }
        #expect(fetcher.fetchCount == 2)
        clock.advance(by: 31)
        fetcher.fail(.connectionFailed)
        do throws(Unavailable) {
            _ = try await cache.document { $0 >= 3 }
            Issue.record("a document from a failing fetch")
        } catch {
            guard case .failed(let failure) = error else { Issue.record("\(error)"); return }
            #expect(RemoteFetchFailure(of: failure) == .connectionFailed)
        }
        do throws(Unavailable) {
            _ = try await cache.document { $0 >= 3 }
            Issue.record("fetched inside the cooldown")
        } catch {
            guard case .coolingDown(let latestFailure?) = error else { Issue.record("the failed look is not said: \(error)"); return }
            #expect(RemoteFetchFailure(of: latestFailure) == .connectionFailed)
        }
        #expect(fetcher.fetchCount == 3)
        #expect(try await cache.document() == 2, "the fresh document still serves who it suffices")
    }
}

/// A fetcher that counts its fetches, yields the count as the document, and fails or holds on demand.
final class CountingFetcher: Sendable {
    /// A count shared across tasks.
    final class Counter: Sendable {
        private let count = Mutex(0)
        var value: Int { count.withLock { $0 } }
        func increment() { count.withLock { $0 += 1 } }
    }

    struct Refusal: RemoteFetchFailureReporting {
        let fetchFailure: RemoteFetchFailure
    }

    private struct State {
        var fetches = 0
        var failure: RemoteFetchFailure?
        var held = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())
    private let maxAge: Int?

    init(maxAge: Int? = 3600) {
        self.maxAge = maxAge
    }

    var fetchCount: Int { state.withLock { $0.fetches } }

    /// Every later fetch fails for `reason`.
    func fail(_ reason: RemoteFetchFailure) { state.withLock { $0.failure = reason } }

    /// Every later fetch succeeds.
    func succeed() { state.withLock { $0.failure = nil } }

    /// Fetches wait until `release()`.
    func hold() { state.withLock { $0.held = true } }

    func release() {
        let waiting = state.withLock { state in
            state.held = false
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }

    func fetch() async throws -> (document: Int, maxAge: Int?) {
        let count = state.withLock { state in
            state.fetches += 1
            return state.fetches
        }
        await withCheckedContinuation { continuation in
            let wait = state.withLock { state in
                if state.held { state.waiting.append(continuation) }
                return state.held
            }
            if !wait { continuation.resume() }
        }
        if let failure = state.withLock({ $0.failure }) { throw Refusal(fetchFailure: failure) }
        return (count, maxAge)
    }
}
