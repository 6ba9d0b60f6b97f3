import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOCore

/// `issuer-bench exchange`: native sign-ins per second (`POST /auth/apple/exchange`) against a
/// running issuer whose Apple JWKS is `issuer dev apple`. Each exchange verifies one Apple
/// signature, writes one session and signs two tokens (access and ID token).
struct ExchangeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "exchange",
        abstract: "Exchanges/s, p50/p99 latency and errors at N concurrent connections.")

    @OptionGroup var load: LoadOptions

    struct Worker: Sendable {
        var index: Int
        var sent = 0
    }

    func run() async throws {
        let pool = try AppleTokenPool(load)
        let url = load.endpoint("/auth/apple/exchange")
        let connections = load.connections
        let generator = LoadGenerator(connections: connections)
        let step: @Sendable (Worker, LoadGenerator) async -> (Worker, LoadGenerator.Outcome?) = { worker, generator in
            var worker = worker
            let body = pool.body(worker: worker.index, request: worker.sent, workers: connections)
            worker.sent += 1
            return (worker, await generator.send(Self.request(url: url, json: body)))
        }
        var workers = (0..<connections).map { Worker(index: $0) }
        do {
            // One exchange alone first: a misconfigured server fails here, with its answer shown.
            let (_, first) = await step(Worker(index: 0), generator)
            guard first?.status == 200 else {
                var report = LoadReport()
                report.add(first!, latency: .zero)
                throw BenchError("the first exchange failed (\(report.firstErrorSample ?? "?")); is the server trusting the dev Apple?")
            }
            if load.warmup > 0 { workers = await generator.run(workers: workers, for: .seconds(load.warmup), step: step).workers }
            let report = await generator.run(workers: workers, for: .seconds(load.seconds), rate: load.rate, step: step).report
            report.printSummary(mode: "exchange", connections: connections, offered: load.rate)
        } catch {
            try await generator.shutdown()
            throw error
        }
        try await generator.shutdown()
    }

    static func request(url: String, json: ByteBuffer) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(json)
        return request
    }
}
