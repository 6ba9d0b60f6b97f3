import Foundation
import IssuerCore
import NIOCore

/// What a load run measured: successes with their latencies, and errors by kind. Any answer
/// other than 200 is an error.
struct LoadReport: Sendable {
    var latencies: [Duration] = []
    var errors: [String: Int] = [:]
    var firstErrorSample: String?
    var wall: Double = 0

    var errorCount: Int { errors.values.reduce(0, +) }

    mutating func add(_ outcome: LoadGenerator.Outcome, latency: Duration) {
        if outcome.status == 200 {
            latencies.append(latency)
            return
        }
        let kind = outcome.status.map { "HTTP \($0)" } ?? "no answer"
        errors[kind, default: 0] += 1
        if firstErrorSample == nil {
            let body = outcome.body.map { String(buffer: $0) } ?? outcome.error ?? ""
            firstErrorSample = "\(kind): \(body.prefix(300))"
        }
    }

    mutating func merge(_ other: LoadReport) {
        latencies += other.latencies
        for (kind, count) in other.errors { errors[kind, default: 0] += count }
        if firstErrorSample == nil { firstErrorSample = other.firstErrorSample }
    }

    /// The latency at quantile `q` (nearest rank), in milliseconds.
    func percentile(_ q: Double, of sorted: [Duration]) -> Double {
        guard !sorted.isEmpty else { return .nan }
        let rank = min(sorted.count - 1, max(0, Int((q * Double(sorted.count)).rounded(.up)) - 1))
        return sorted[rank].timeInterval * 1000
    }

    /// Human lines, then one `RESULT` line for scripts.
    func printSummary(mode: String, connections: Int) {
        let sorted = latencies.sorted()
        let rate = Double(latencies.count) / wall
        let p50 = percentile(0.50, of: sorted)
        let p99 = percentile(0.99, of: sorted)
        let max = sorted.last.map { $0.timeInterval * 1000 } ?? .nan
        print(String(format: "%@: %d connections, %.1f s: %d ok, %d errors", mode, connections, wall, latencies.count, errorCount))
        print(String(format: "  throughput %.1f/s   latency p50 %.2f ms   p99 %.2f ms   max %.2f ms", rate, p50, p99, max))
        if !errors.isEmpty {
            print("  errors: " + errors.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }.joined(separator: ", "))
            if let firstErrorSample { print("  first error: \(firstErrorSample)") }
        }
        print(String(format: "RESULT mode=%@ connections=%d rate=%.1f p50_ms=%.2f p99_ms=%.2f errors=%d", mode, connections, rate, p50, p99, errorCount))
    }
}
