import Foundation

/// The source of "now" for everything time-dependent in the issuer: key rotation timing (docs/reference.md, "Signing keys"),
/// token `iat`/`exp` (RFC 7519 §4.1.4, §4.1.6) and expiry checks.
///
/// Injected rather than read from `Date()` so that every time rule can be tested by moving a clock,
/// the jwt-kit and dex habit (docs/design.md, "Time is injected"). Named apart from the standard library's `Clock`,
/// which measures durations between instants, not wall-clock dates.
public protocol WallClock: Sendable {
    /// The current wall-clock time.
    var now: Date { get }
}
