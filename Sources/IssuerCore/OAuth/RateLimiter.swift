import Foundation
import Synchronization

/// SPEC §2 `ISSUER_RATE_LIMIT`: one token bucket per client IP, shared by the endpoints that
/// sign in or mint tokens. Per process: with several processes behind a load balancer each
/// grants its own allowance, which bounds abuse without a shared store on the hot path.
public final class RateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: Date
    }

    private let limit: RateLimit
    private let clock: any Clock
    private let buckets = Mutex<[String: Bucket]>([:])
    /// Above this many tracked clients, full buckets (idle clients) are forgotten.
    private let maximumClients: Int

    /// - Parameter maximumClients: how many client IPs are tracked before idle ones are forgotten.
    public init(limit: RateLimit, clock: any Clock, maximumClients: Int = 100_000) {
        self.limit = limit
        self.clock = clock
        self.maximumClients = maximumClients
    }

    /// Takes one request's allowance for `client`; answers nil if allowed, else the whole
    /// seconds to wait before the next request would be (for `Retry-After`).
    public func acquire(client: String) -> Int? {
        let now = clock.now
        return buckets.withLock { buckets in
            var bucket = buckets[client] ?? Bucket(tokens: Double(limit.burst), updated: now)
            let elapsed = max(0, now.timeIntervalSince(bucket.updated))
            bucket.tokens = min(Double(limit.burst), bucket.tokens + elapsed * limit.perSecond)
            bucket.updated = now
            defer {
                buckets[client] = bucket
                if buckets.count > maximumClients { forgetIdle(&buckets, now: now) }
            }
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
                return nil
            }
            return max(1, Int(((1 - bucket.tokens) / limit.perSecond).rounded(.up)))
        }
    }

    private func forgetIdle(_ buckets: inout [String: Bucket], now: Date) {
        buckets = buckets.filter { _, bucket in
            bucket.tokens + now.timeIntervalSince(bucket.updated) * limit.perSecond < Double(limit.burst)
        }
    }
}
