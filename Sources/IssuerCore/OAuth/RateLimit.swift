/// A token-bucket allowance per client IP (docs/reference.md, "Configuration" `ISSUER_RATE_LIMIT`): `perSecond` requests per
/// second on average, bursts up to `burst`.
public struct RateLimit: Sendable, Equatable {
    /// Sustained rate: allowance added per second (`600/m` is 10).
    public var perSecond: Double
    /// Bucket capacity: how many requests may arrive at once after a quiet spell.
    public var burst: Int

    /// The slowest rate accepted: one request a day. Below it the wait before the next request
    /// (`Retry-After`, whole seconds) stops being a number a client or an `Int` can hold
    /// (`1e-300/s` once parsed and then trapped on the first 429).
    public static let minimumPerSecond = 1.0 / 86_400
    /// The fastest rate and the largest burst accepted; beyond them the limit is no limit.
    public static let maximumPerSecond = 1_000_000.0
    /// See `maximumPerSecond`.
    public static let maximumBurst = 1_000_000

    /// The rate already in per-second terms; `init?(_:)` parses the syntax and enforces the (docs/reference.md, "Configuration")
    /// bounds above.
    public init(perSecond: Double, burst: Int) {
        self.perSecond = perSecond
        self.burst = burst
    }

    /// Parses `20/s burst 40`, `20/s` (burst = rate) or `600/m burst 40`; nil for anything
    /// else, including rates and bursts outside the representable bounds.
    public init?(_ text: String) {
        let words = text.split(separator: " ", omittingEmptySubsequences: true)
        guard words.count == 1 || (words.count == 3 && words[1].lowercased() == "burst") else { return nil }
        let rate = words[0].split(separator: "/")
        guard rate.count == 2, let count = Double(rate[0]), count > 0, count.isFinite else { return nil }
        let seconds: Double
        switch rate[1].lowercased() {
        case "s": seconds = 1
        case "m": seconds = 60
        case "h": seconds = 3600
        default: return nil
        }
        let perSecond = count / seconds
        guard perSecond >= Self.minimumPerSecond, perSecond <= Self.maximumPerSecond else { return nil }
        let burst: Int
        if words.count == 3 {
            guard let value = Int(words[2]), value > 0, value <= Self.maximumBurst else { return nil }
            burst = value
        } else {
            burst = max(1, Int(count.rounded(.up)))
        }
        self.init(perSecond: perSecond, burst: burst)
    }
}
