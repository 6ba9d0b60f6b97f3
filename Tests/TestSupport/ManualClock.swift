import Foundation
import IssuerCore
import Synchronization

/// A `WallClock` that only moves when told to, for tests of time rules (docs/reference.md, "Signing keys" rotation and prune
/// timing, token expiry) in every test target.
///
/// A class behind a `Mutex` so that one instance can be shared by the code under test and the test
/// that advances it, across tasks and threads.
public final class ManualClock: WallClock {
    private let current: Mutex<Date>

    /// Starts at `start`; the default is a fixed, whole-second instant so runs are reproducible (docs/reference.md, "Signing keys" timing, RFC 7519 §4.1.4 expiry).
    public init(_ start: Date = Date(timeIntervalSince1970: 1_750_000_000)) {
        current = Mutex(start)
    }

    /// The time the clock was last set to (docs/reference.md, "Signing keys" timing, RFC 7519 §4.1.4 expiry).
    public var now: Date { current.withLock { $0 } }

    /// Moves the clock forward (or backward, for a negative interval) by `seconds` (docs/reference.md, "Signing keys" timing, RFC 7519 §4.1.4 expiry).
    public func advance(by seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }

    /// Moves the clock by a `Duration`, for callers that think in `.seconds(…)` (docs/reference.md, "Signing keys" timing, RFC 7519 §4.1.4 expiry).
    public func advance(by duration: Duration) {
        advance(by: duration.timeInterval)
    }

    /// Sets the clock to `date` (docs/reference.md, "Signing keys" timing, RFC 7519 §4.1.4 expiry).
    public func set(_ date: Date) {
        current.withLock { $0 = date }
    }
}
