import AsyncHTTPClient
import Foundation
import IssuerCore
import NIOCore

/// Closed-loop load: `connections` workers, each sending its next request as soon as the
/// previous one answered, over a pool of exactly that many HTTP/1.1 keep-alive connections.
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
        workers: [Worker], for duration: Duration,
        step: @escaping @Sendable (Worker, LoadGenerator) async -> (Worker, Outcome?)
    ) async -> (report: LoadReport, workers: [Worker]) {
        let start = ContinuousClock.now
        let end = start + duration
        let parts = await withTaskGroup(of: (Int, Worker, LoadReport).self) { group in
            for (index, worker) in workers.enumerated() {
                group.addTask {
                    var worker = worker
                    var report = LoadReport()
                    while ContinuousClock.now < end {
                        let began = ContinuousClock.now
                        let (next, outcome) = await step(worker, self)
                        worker = next
                        guard let outcome else { continue }
                        report.add(outcome, latency: ContinuousClock.now - began)
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
