import Foundation

/// The real wall clock (see ``WallClock``), used by the server and the CLI (SPEC §5, RFC 7519 §4.1.4).
public struct SystemClock: WallClock {
    /// Creates the wall clock (SPEC §5, RFC 7519 §4.1.4).
    public init() {}

    /// The current time as the operating system reports it (SPEC §5, RFC 7519 §4.1.4).
    public var now: Date { Date() }
}
