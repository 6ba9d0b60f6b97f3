import ArgumentParser
import Foundation
import NIOCore

/// `issuer-bench tokens`: writes what another load generator (wrk, in `scripts/bench`) needs to
/// drive the token endpoints, one item per line: Apple identity tokens for the native exchange,
/// or refresh tokens, each the head of its own rotation chain (one exchange each, made here).
struct TokensCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tokens",
        abstract: "Write Apple identity tokens or fresh refresh tokens, one per line, for an external load generator.")

    enum Kind: String, ExpressibleByArgument, CaseIterable {
        case apple, refresh
    }

    @OptionGroup var load: LoadOptions

    @Option(help: "apple: identity tokens of --users distinct users; refresh: --users refresh tokens, one sign-in each.")
    var kind: Kind

    @Option(help: "The file to write.")
    var out: String

    func run() async throws {
        let pool = try AppleTokenPool(load, validFor: 3_600)
        var lines: [String]
        switch kind {
        case .apple:
            lines = pool.tokens
        case .refresh:
            let generator = LoadGenerator(connections: load.connections)
            let url = load.endpoint("/auth/apple/exchange")
            let bodies = pool.bodies
            let results = await withTaskGroup(of: (Int, LoadGenerator.Outcome).self) { group in
                var results = [LoadGenerator.Outcome?](repeating: nil, count: bodies.count)
                var next = 0
                // At most --connections exchanges in flight.
                while next < min(load.connections, bodies.count) {
                    let index = next
                    group.addTask { (index, await generator.send(ExchangeCommand.request(url: url, json: bodies[index]))) }
                    next += 1
                }
                while let (index, outcome) = await group.next() {
                    results[index] = outcome
                    if next < bodies.count {
                        let index = next
                        group.addTask { (index, await generator.send(ExchangeCommand.request(url: url, json: bodies[index]))) }
                        next += 1
                    }
                }
                return results
            }
            try await generator.shutdown()
            lines = []
            for outcome in results {
                guard let outcome, let token = RefreshCommand.refreshToken(in: outcome) else {
                    var report = LoadReport()
                    if let outcome { report.add(outcome, latency: .zero) }
                    throw BenchError("an exchange failed: \(report.firstErrorSample ?? "no answer")")
                }
                lines.append(token)
            }
        }
        try (lines.joined(separator: "\n") + "\n").write(toFile: out, atomically: true, encoding: .utf8)
        print("wrote \(lines.count) \(kind.rawValue) tokens to \(out)")
    }
}
