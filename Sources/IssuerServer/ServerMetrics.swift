import Postgres
import Prometheus

/// The process's Prometheus registry and the metrics SPEC §3.9 names. One instance per
/// application, passed to whoever records, rather than a global `MetricsSystem`, so that many
/// applications in one test process never share counters.
public final class ServerMetrics: Sendable {
    /// Everything `/metrics` exposes.
    public let registry = PrometheusCollectorRegistry()

    /// Buckets from 1 ms to 10 s: token endpoints live around 1–25 ms.
    static let latencyBuckets: [Duration] = [
        .milliseconds(1), .milliseconds(2.5), .milliseconds(5), .milliseconds(10), .milliseconds(25),
        .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1),
        .seconds(2.5), .seconds(10),
    ]

    /// A fresh registry with nothing recorded.
    public init() {}

    /// Counts one answered request and records how long it took.
    func recordRequest(route: String, method: String, status: Int, duration: Duration) {
        let labels = [("route", route), ("method", method), ("status", String(status))]
        registry.makeCounter(
            descriptor: MetricNameDescriptor(
                namespace: "issuer", subsystem: "http", metricName: "requests", unitName: "total",
                helpText: "HTTP requests answered, by route, method and status"),
            labels: labels
        ).increment()
        registry.makeDurationHistogram(
            descriptor: MetricNameDescriptor(
                namespace: "issuer", subsystem: "http", metricName: "request_duration", unitName: "seconds",
                helpText: "HTTP request latency, by route, method and status"),
            labels: labels,
            buckets: Self.latencyBuckets
        ).record(duration)
    }

    /// Publishes the pool's current use; called when `/metrics` is scraped, so the numbers are
    /// fresh without a timer.
    func recordPool(_ statistics: ConnectionPool.Statistics) {
        func gauge(_ name: String, _ help: String) -> Gauge {
            registry.makeGauge(descriptor: MetricNameDescriptor(
                namespace: "issuer", subsystem: "db_pool", metricName: name, unitName: "connections", helpText: help))
        }
        gauge("size", "Connections in the database pool").set(Double(statistics.size))
        gauge("in_use", "Database connections in use").set(Double(statistics.inUse))
        registry.makeGauge(descriptor: MetricNameDescriptor(
            namespace: "issuer", subsystem: "db_pool", metricName: "waiting", unitName: "requests",
            helpText: "Requests waiting for a database connection")).set(Double(statistics.waiting))
    }

    /// Counts a fetch of a provider's JWKS and whether it failed (SPEC §3.9).
    func recordJWKSFetch(provider: String, succeeded: Bool) {
        registry.makeCounter(
            descriptor: MetricNameDescriptor(
                namespace: "issuer", subsystem: "jwks", metricName: "fetches", unitName: "total",
                helpText: "Fetches of identity providers' JWKS"),
            labels: [("provider", provider)]
        ).increment()
        if !succeeded {
            registry.makeCounter(
                descriptor: MetricNameDescriptor(
                    namespace: "issuer", subsystem: "jwks", metricName: "fetch_failures", unitName: "total",
                    helpText: "Failed fetches of identity providers' JWKS"),
                labels: [("provider", provider)]
            ).increment()
        }
    }

    /// Counts one successful token response by grant (SPEC §3.9).
    func recordTokensIssued(grant: String) {
        registry.makeCounter(
            descriptor: MetricNameDescriptor(
                namespace: "issuer", subsystem: "tokens", metricName: "issued", unitName: "total",
                helpText: "Token responses issued, by grant"),
            labels: [("grant", grant)]
        ).increment()
    }

    /// Counts a refresh token presented again after its grace window (SPEC §4.3).
    func recordRefreshReuse() {
        registry.makeCounter(descriptor: MetricNameDescriptor(
            namespace: "issuer", subsystem: "refresh", metricName: "reuse_detections", unitName: "total",
            helpText: "Spent refresh tokens presented after the grace window (sessions revoked)")).increment()
    }
}
