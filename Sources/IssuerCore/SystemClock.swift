import Foundation

/// The real wall clock (see ``Clock``), used by the server and the CLI.
public struct SystemClock: Clock {
    /// Creates the wall clock.
    public init() {}

    /// The current time as the operating system reports it.
    public var now: Date { Date() }
}
