import Foundation

/// The source of "now" for everything time-dependent in the issuer: key rotation timing (SPEC §5),
/// token `iat`/`exp` (RFC 7519 §4.1.4, §4.1.6) and expiry checks.
///
/// Injected rather than read from `Date()` so that every time rule can be tested by moving a clock,
/// the jwt-kit and dex habit (ARCHITECTURE §7). Named apart from the standard library's `Clock`,
/// which measures durations between instants, not wall-clock dates.
public protocol WallClock: Sendable {
    /// The current wall-clock time.
    var now: Date { get }
}
