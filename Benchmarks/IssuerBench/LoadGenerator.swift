import AsyncHTTPClient
import Foundation
import IssuerCore
import NIOCore
import Synchronization

/// Load over a pool of exactly `connections` HTTP/1.1 keep-alive connections, one worker each.
///
/// Closed loop (no rate): each worker sends its next request as soon as the previous one
/// answered, so a slow server is offered less load and its stalls hide in fewer samples.
/// Open loop (`rate`): request *n* is due at `start + n / rate` whatever happened before; the
/// next free worker takes it, waiting for its due time if early, and its latency runs from the
/// due time, not from when it was sent. A stall then shows in every request it delayed, which is
/// what a user sees (the correction for coordinated omission).
///
/// A worker is a value made per connection by the caller (`makeWorker`), so a mode can keep
/// per-connection state, such as the refresh-token chain each connection follows.
struct LoadGenerator {
    /// One request of a worker: what it sent and how it went.
    struct Outcome {
        var status: Int?  // nil: no HTTP answer at all
        var body: ByteBuffer?
        var error: String?
    }

    let client: HTTPClient
    let connections: Int

    init(connections: Int) {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: connections)
        configuration.timeout = .init(connect: .seconds(5), read: .seconds(30))
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        self.connections = connections
    }

    func shutdown() async throws {
        try await client.shutdown()
    }

    /// Sends one request and collects the whole answer (up to 1 MiB).
    func send(_ request: HTTPClientRequest) async -> Outcome {
        do {
            let response = try await client.execute(request, timeout: .seconds(30))
            let body = try await response.body.collect(upTo: 1024 * 1024)
            return Outcome(status: Int(response.status.code), body: body)
        } catch {
            return Outcome(status: nil, error: "\(error)")
        }
    }

    /// Runs every worker's `step` in a loop for `duration`, and returns what happened and the
    /// workers as they ended (so a warm-up's state, like a refresh chain, carries on).
    ///
    /// `step` returns the outcome of the one timed request it made, or nil when it only did set-up
    /// work that is not timed (like starting a new refresh chain).
    func run<Worker: Sendable>(
        workers: [Worker], for duration: Duration, rate: Double? = nil,
        step: @escaping @Sendable (Worker, LoadGenerator) async -> (Worker, Outcome?)
    ) async -> (report: LoadReport, workers: [Worker]) {
        let start = ContinuousClock.now
        let end = start + duration
        let slots = SlotCounter()
        let parts = await withTaskGroup(of: (Int, Worker, LoadReport).self) { group in
            for (index, worker) in workers.enumerated() {
                group.addTask {
                    var worker = worker
                    var report = LoadReport()
                    while ContinuousClock.now < end {
                        var due = ContinuousClock.now
                        if let rate {
                            due = start + .seconds(Double(slots.take()) / rate)
                            if due >= end { break }
                            if ContinuousClock.now < due { try? await Task.sleep(until: due, clock: .continuous) }
                        }
                        // Untimed set-up steps (a new refresh chain) count against the request
                        // that needed them: the latency still runs from its due time.
                        var outcome: Outcome?
                        while outcome == nil, ContinuousClock.now < end {
                            (worker, outcome) = await step(worker, self)
                            if outcome == nil, rate == nil { due = ContinuousClock.now }
                        }
                        guard let outcome else { break }
                        report.add(outcome, latency: ContinuousClock.now - due)
                    }
                    return (index, worker, report)
                }
            }
            var total = LoadReport()
            var ended = workers
            for await (index, worker, part) in group {
                total.merge(part)
                ended[index] = worker
            }
            return (total, ended)
        }
        var report = parts.0
        report.wall = (ContinuousClock.now - start).timeInterval
        return (report, parts.1)
    }
}

/// Hands out the open loop's request numbers, each once, to whichever worker is free.
private final class SlotCounter: Sendable {
    private let next = Atomic<Int>(0)

    func take() -> Int {
        next.wrappingAdd(1, ordering: .relaxed).oldValue
    }
}
