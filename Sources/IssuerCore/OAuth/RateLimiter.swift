import Foundation
import Synchronization

/// docs/reference.md, "Configuration" `ISSUER_RATE_LIMIT`: one token bucket per client, shared by the endpoints that sign in
/// or mint tokens. Per process: with several processes behind a load balancer each grants its
/// own allowance, which bounds abuse without a shared store on the hot path.
///
/// docs/reference.md, "Faults and bad input": memory is bounded whatever the number of addresses seen, and no request pays for
/// more than its own bucket. Buckets live in two generations: new and refreshed buckets go to
/// the current one; when it holds half the capacity, it becomes the previous one and the old
/// previous one is dropped (outside the lock). A client seen within the last generation keeps its
/// bucket; one not seen for a whole generation starts again with a full burst, which is the most
/// an attacker gains by cycling addresses. IPv6 clients are limited per /64, the block a single
/// host or subscriber is normally given, so one host cannot mint itself 2^64 allowances.
public final class RateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: Date
    }

    private struct Generations {
        var current: [RateLimitKey: Bucket] = [:]
        var previous: [RateLimitKey: Bucket] = [:]
    }

    private let limit: RateLimit
    private let clock: any WallClock
    private let generations = Mutex(Generations())
    private let generationSize: Int

    /// - Parameter maximumClients: how many clients are tracked at most (two generations of half
    ///   that each).
    public init(limit: RateLimit, clock: any WallClock, maximumClients: Int = 100_000) {
        self.limit = limit
        self.clock = clock
        self.generationSize = max(1, maximumClients / 2)
    }

    /// How many clients are tracked now (for tests and metrics).
    public var trackedClients: Int {
        generations.withLock { $0.current.count + $0.previous.count }
    }

    /// Takes one request's allowance for the client at `address` (textual IPv4 or IPv6); answers
    /// nil if allowed, else the whole seconds to wait before the next request would be (for
    /// `Retry-After`).
    public func acquire(client address: String) -> Int? {
        let key = RateLimitKey(address: address)
        let now = clock.now
        let (wait, retired) = generations.withLock { state -> (Int?, [RateLimitKey: Bucket]?) in
            var bucket = state.current[key] ?? state.previous[key] ?? Bucket(tokens: Double(limit.burst), updated: now)
            let elapsed = max(0, now.timeIntervalSince(bucket.updated))
            bucket.tokens = min(Double(limit.burst), bucket.tokens + elapsed * limit.perSecond)
            bucket.updated = now
            var wait: Int?
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
            } else {
                wait = Self.wholeSeconds((1 - bucket.tokens) / limit.perSecond)
            }
            state.current[key] = bucket
            guard state.current.count >= generationSize else { return (wait, nil) }
            let retired = state.previous
            state.previous = state.current
            state.current = [:]
            return (wait, retired)
        }
        // Freed here, outside the lock: dropping a generation is O(n).
        withExtendedLifetime(retired) {}
        return wait
    }

    /// A wait in whole seconds, at least 1, and never past what an `Int` (or a client) can hold.
    private static func wholeSeconds(_ seconds: Double) -> Int {
        guard seconds.isFinite else { return 86_400 }
        return Int(min(86_400, max(1, seconds.rounded(.up))))
    }
}

/// Who a bucket belongs to: an IPv4 address, or the /64 of an IPv6 one (IPv4-mapped IPv6
/// addresses count as IPv4, as a dual-stack socket reports them so).
struct RateLimitKey: Hashable, Sendable {
    private enum Storage: Hashable, Sendable {
        case v4(UInt32)
        case v6Prefix(UInt64)
        case other(String)
    }

    private let storage: Storage

    init(address: String) {
        guard let bytes = IPAddressRange.parseAddress(address) else {
            storage = .other(address)
            return
        }
        if bytes.count == 4 {
            storage = .v4(bytes.reduce(0) { $0 << 8 | UInt32($1) })
        } else if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff {
            storage = .v4(bytes[12...].reduce(0) { $0 << 8 | UInt32($1) })
        } else {
            storage = .v6Prefix(bytes[0..<8].reduce(0) { $0 << 8 | UInt64($1) })
        }
    }
}
