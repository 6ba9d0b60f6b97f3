import IssuerCore
import Postgres
import Prometheus
import Synchronization

/// The process's Prometheus registry and the metrics docs/reference.md, "Operations" names. One instance per
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

    /// The methods counted by name; any other (a client may send any token) counts as `other`,
    /// so that no client can grow the label space, and with it this process's memory.
    static let countedMethods: Set<String> = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]

    /// One label set's instruments for every request metric.
    struct RequestInstruments: Sendable {
        let count: Counter
        let duration: DurationHistogram

        /// Counts one answered request and records how long it took.
        func record(_ duration: Duration) {
            count.increment()
            self.duration.record(duration)
        }
    }

    private struct RequestLabels: Hashable {
        let route: String
        let method: String
        let status: Int
    }

    /// The registry builds a name and looks a label set up under its lock each time it is asked;
    /// the label sets are few (routes × methods × statuses), so each is asked for once.
    private let requestInstruments = Mutex<[RequestLabels: RequestInstruments]>([:])

    /// The counters `count` has asked the registry for, for the same reason (`tokens_issued` is
    /// counted on every token answer): one per label set the registry holds anyway.
    private let counters = Mutex<[CounterKey: Counter]>([:])

    private struct CounterKey: Hashable {
        let subsystem: String
        let metric: String
        /// Names and values, alternating.
        let labels: [String]
    }

    /// A fresh registry with nothing recorded.
    public init() {}

    /// Counts one answered request and records how long it took.
    func recordRequest(route: String, method: String, status: Int, duration: Duration) {
        requestInstruments(route: route, method: method, status: status).record(duration)
    }

    /// The instruments `recordRequest` records in for these labels, for a caller that answers
    /// many requests of one label set and keeps them (`ResponseStamp.instruments`).
    func requestInstruments(route: String, method: String, status: Int) -> RequestInstruments {
        let key = RequestLabels(route: route, method: Self.countedMethods.contains(method) ? method : "other", status: status)
        return requestInstruments.withLock { cache in
            if let known = cache[key] { return known }
            let labels = [("route", key.route), ("method", key.method), ("status", String(key.status))]
            let made = RequestInstruments(
                count: registry.makeCounter(
                    descriptor: Self.name("http", "requests", "total", "HTTP requests answered, by route, method and status"),
                    labels: labels),
                duration: registry.makeDurationHistogram(
                    descriptor: Self.name("http", "request_duration", "seconds", "HTTP request latency, by route, method and status"),
                    labels: labels,
                    buckets: Self.latencyBuckets))
            cache[key] = made
            return made
        }
    }

    /// Publishes the pool's current use; called when `/metrics` is scraped, so the numbers are
    /// fresh without a timer.
    func recordPool(_ statistics: ConnectionPool.Statistics) {
        for (metric, unit, help, value) in [
            ("size", "connections", "Connections in the database pool", statistics.size),
            ("in_use", "connections", "Database connections in use", statistics.inUse),
            ("waiting", "requests", "Requests waiting for a database connection", statistics.waiting),
        ] {
            registry.makeGauge(descriptor: Self.name("db_pool", metric, unit, help)).set(Double(value))
        }
    }

    /// Counts a fetch of a provider's JWKS and, when it failed, why: `reason` is one of the closed
    /// set of `RemoteFetchFailure`, never a URL or a remote party's words (docs/reference.md, "Operations").
    func recordJWKSFetch(provider: String, failure: RemoteFetchFailure?) {
        count("jwks", "fetches", "Fetches of identity providers' JWKS", [("provider", provider)])
        if let failure {
            count("jwks", "fetch_failures", "Failed fetches of identity providers' JWKS (their discovery documents' included), by reason",
                  [("provider", provider), ("reason", failure.rawValue)])
        }
    }

    /// Counts one successful token response by grant (docs/reference.md, "Operations").
    func recordTokensIssued(grant: String) {
        count("tokens", "issued", "Token responses issued, by grant", [("grant", grant)])
    }

    /// Counts one sign-in by provider, flow and outcome (docs/reference.md, "Operations").
    func recordSignIn(provider: String, flow: String, outcome: String) {
        count("", "sign_ins", "Sign-ins, by provider, flow (native, token_exchange, hosted) and outcome (success or the error code)",
              [("provider", provider), ("flow", flow), ("outcome", outcome)])
    }

    /// Counts one identity linked to a user, by how (docs/reference.md, "Linked identities").
    func recordIdentityLink(provider: String, by: String) {
        count("identity", "links", "Identities linked to users, by provider and how (user, verified_email)", [("provider", provider), ("by", by)])
    }

    /// Counts one identity unlinked by its user.
    func recordIdentityUnlink(provider: String) {
        count("identity", "unlinks", "Identities unlinked by their users, by provider", [("provider", provider)])
    }

    /// Counts a refresh token presented again after its grace window (docs/reference.md, "Refresh tokens and sessions").
    func recordRefreshReuse() {
        count("refresh", "reuse_detections", "Spent refresh tokens presented after the grace window (sessions revoked)", [])
    }

    /// Counts a deleted account, by why (docs/reference.md, "Account deletion" and "Apple notifications").
    func recordAccountDeletion(reason: String) {
        count("accounts", "deletions", "Accounts deleted, by reason", [("reason", reason)])
    }

    /// Counts one try to revoke an Apple token, by outcome (docs/reference.md, "Account deletion").
    func recordAppleRevocation(outcome: String) {
        count("apple", "revocations", "Tries to revoke Apple tokens, by outcome", [("outcome", outcome)])
    }

    /// Counts one try to redeem an Apple authorization code, by outcome (docs/reference.md, "Apple token custody").
    func recordAppleRedemption(outcome: String) {
        count("apple", "code_redemptions", "Tries to redeem Apple authorization codes, by outcome", [("outcome", outcome)])
    }

    /// Counts one Apple server-to-server notification, by event type (docs/reference.md, "Apple notifications").
    func recordAppleNotification(type: String) {
        count("apple", "notifications", "Apple server-to-server notifications, by type", [("type", type)])
    }

    /// Counts one event of Google's security event tokens, by event type (docs/reference.md, "Google's account-protection events").
    func recordGoogleSecurityEvent(type: String) {
        count("google", "security_events", "Google security events (RISC), by type", [("type", type)])
    }

    /// Counts one call of a provider's callback, by provider, callback and outcome (docs/reference.md, "Facebook's callbacks").
    func recordProviderCallback(provider: String, callback: String, outcome: String) {
        count("provider", "callbacks", "Provider callbacks (Facebook's deauthorize and data deletion), by outcome", [
            ("provider", provider), ("callback", callback), ("outcome", outcome),
        ])
    }

    /// Publishes how many providers' deletion notices wait to be sent (docs/reference.md, "Account deletion").
    func recordDeletionNoticeQueue(depth: Int) {
        registry.makeGauge(descriptor: Self.name("deletion_notice", "queue", "depth", "Providers' deletion notices (Facebook's permissions removal) waiting to be sent"))
            .set(Double(depth))
    }

    /// Publishes how many Apple revocations wait in the queue (docs/reference.md, "Account deletion").
    func recordAppleRevocationQueue(depth: Int) {
        registry.makeGauge(descriptor: Self.name("apple", "revocation_queue", "depth", "Apple revocations waiting to be sent"))
            .set(Double(depth))
    }

    /// `issuer_<subsystem>_<metric>_total`, incremented.
    private func count(_ subsystem: String, _ metric: String, _ help: String, _ labels: [(String, String)]) {
        let key = CounterKey(subsystem: subsystem, metric: metric, labels: labels.flatMap { [$0.0, $0.1] })
        let counter = counters.withLock { cache in
            if let known = cache[key] { return known }
            let made = registry.makeCounter(descriptor: Self.name(subsystem, metric, "total", help), labels: labels)
            cache[key] = made
            return made
        }
        counter.increment()
    }

    static func name(_ subsystem: String, _ metric: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "issuer", subsystem: subsystem, metricName: metric, unitName: unit, helpText: help)
    }
}
