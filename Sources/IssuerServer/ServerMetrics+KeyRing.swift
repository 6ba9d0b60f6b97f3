import Foundation
import IssuerCore
import Prometheus

extension ServerMetrics {
    /// The ring in use as of a scrape (docs/operations.md, "Reading the metrics"): how long the
    /// active key has signed, and since when the next key is published. A gauge whose key the ring
    /// lacks is not exported (no active key before `issuer keys init`, no next key on a ring
    /// edited by hand), rather than exported as a made-up 0.
    func recordKeyRing(_ ring: KeyRing, at now: Date) {
        let active = Self.name("keys", "active_age", "seconds", "Seconds since the active signing key became active")
        let next = Self.name("keys", "next_published", "timestamp_seconds", "Unix time at which the next signing key entered the JWKS")
        if let key = ring.active {
            registry.makeGauge(descriptor: active).set(now.timeIntervalSince(key.activatedAt ?? key.createdAt))
        } else {
            registry.unregisterGauge(registry.makeGauge(descriptor: active))
        }
        if let key = ring.next {
            registry.makeGauge(descriptor: next).set(key.createdAt.timeIntervalSince1970)
        } else {
            registry.unregisterGauge(registry.makeGauge(descriptor: next))
        }
    }

    /// One read of the key ring directory (docs/reference.md, "Signing keys"): a success moves the
    /// last-success time, a failure (the previous ring kept) counts. The counter exists from the
    /// first read on, at 0, so that `increase()` sees the first failure.
    func recordKeyRingReload(succeeded: Bool, at now: Date) {
        let failures = registry.makeCounter(
            descriptor: Self.name("keys", "reload_failures", "total", "Reads of the key ring that failed, keeping the previous ring"))
        if succeeded {
            registry.makeGauge(
                descriptor: Self.name("keys", "last_reload_success", "timestamp_seconds", "Unix time of the last successful read of the key ring")
            ).set(now.timeIntervalSince1970)
        } else {
            failures.increment()
        }
    }
}
