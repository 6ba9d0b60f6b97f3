@testable import IssuerServer

/// What `/metrics` shows for a `ServerMetrics` (docs/operations.md, "Reading the metrics"), read
/// the one way the tests read it: the Prometheus text, and the value of one series in it.
enum MetricsExposition {
    /// The Prometheus text exposition, as `/metrics` answers it.
    static func text(_ metrics: ServerMetrics) -> String {
        var buffer = [UInt8]()
        metrics.registry.emit(into: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }

    /// The value of the series `line` (name and labels exactly, e.g.
    /// `issuer_apple_revocations_total{outcome="revoked"}`) in `text`, if present.
    static func value(in text: String, _ line: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(line + " ") }.flatMap { Double($0.dropFirst(line.count + 1)) }
    }

    /// The value of the series `line` (name and labels exactly) in `metrics`, if present.
    static func value(_ metrics: ServerMetrics, _ line: String) -> Double? {
        value(in: text(metrics), line)
    }

    /// The value of the series `name` whose labels include every one of `labels`, whatever
    /// their order.
    static func value(_ metrics: ServerMetrics, _ name: String, labels: [String]) -> Double? {
        text(metrics).split(separator: "\n")
            .first { $0.hasPrefix(name + "{") && labels.allSatisfy($0.contains) }
            .flatMap { Double($0.split(separator: " ").last ?? "") }
    }

    /// The count of `issuer_sign_ins_total` for these labels.
    static func signIns(_ metrics: ServerMetrics, provider: String, flow: String, outcome: String) -> Double? {
        value(metrics, "issuer_sign_ins_total", labels: ["provider=\"\(provider)\"", "flow=\"\(flow)\"", "outcome=\"\(outcome)\""])
    }
}
