import Foundation
import Histogram
import IssuerCore
import NIOCore

/// What a load run measured: successes with their latencies (an HdrHistogram in microseconds),
/// and errors by kind. Any answer other than 200 is an error.
struct LoadReport: Sendable {
    /// Microseconds, 1 µs to 10 minutes at three significant digits.
    var latencies = Histogram<UInt64>(lowestDiscernibleValue: 1, highestTrackableValue: 600_000_000, numberOfSignificantValueDigits: .three)
    var errors: [String: Int] = [:]
    var firstErrorSample: String?
    var wall: Double = 0

    var errorCount: Int { errors.values.reduce(0, +) }
    var successCount: Int { Int(latencies.totalCount) }

    mutating func add(_ outcome: LoadGenerator.Outcome, latency: Duration) {
        if outcome.status == 200 {
            let micros = max(1, latency.components.seconds * 1_000_000 + latency.components.attoseconds / 1_000_000_000_000)
            _ = latencies.record(UInt64(min(micros, 600_000_000)))
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
        latencies.add(other.latencies)
        for (kind, count) in other.errors { errors[kind, default: 0] += count }
        if firstErrorSample == nil { firstErrorSample = other.firstErrorSample }
    }

    /// The latency at `percentile` (0–100), in milliseconds.
    func milliseconds(at percentile: Double) -> Double {
        guard latencies.totalCount > 0 else { return .nan }
        return Double(latencies.valueAtPercentile(percentile)) / 1000
    }

    /// Human lines, then one `RESULT` line for scripts. `offered` is the open-loop rate, if any:
    /// its latencies are then measured from each request's scheduled start (corrected for
    /// coordinated omission), not from when a connection was free to send it.
    func printSummary(mode: String, connections: Int, offered: Double? = nil) {
        let rate = Double(successCount) / wall
        let maxMs = latencies.totalCount > 0 ? Double(latencies.max) / 1000 : .nan
        let loop = offered.map { String(format: "open loop at %.1f/s offered", $0) } ?? "closed loop"
        print(String(format: "%@: %d connections, %@, %.1f s: %d ok, %d errors", mode, connections, loop, wall, successCount, errorCount))
        print(String(
            format: "  throughput %.1f/s   latency p50 %.2f ms   p90 %.2f ms   p99 %.2f ms   p99.9 %.2f ms   max %.2f ms",
            rate, milliseconds(at: 50), milliseconds(at: 90), milliseconds(at: 99), milliseconds(at: 99.9), maxMs))
        if !errors.isEmpty {
            print("  errors: " + errors.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }.joined(separator: ", "))
            if let firstErrorSample { print("  first error: \(firstErrorSample)") }
        }
        print(String(
            format: "RESULT mode=%@ connections=%d offered=%.1f rate=%.1f p50_ms=%.2f p90_ms=%.2f p99_ms=%.2f p999_ms=%.2f max_ms=%.2f errors=%d",
            mode, connections, offered ?? 0, rate, milliseconds(at: 50), milliseconds(at: 90), milliseconds(at: 99),
            milliseconds(at: 99.9), maxMs, errorCount))
    }
}
