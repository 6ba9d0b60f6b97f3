import Foundation

/// The real wall clock (see ``WallClock``), used by the server and the CLI (docs/reference.md, "Signing keys", RFC 7519 §4.1.4).
public struct SystemClock: WallClock {
    /// Creates the wall clock (docs/reference.md, "Signing keys", RFC 7519 §4.1.4).
    public init() {}

    /// The current time as the operating system reports it (docs/reference.md, "Signing keys", RFC 7519 §4.1.4).
    public var now: Date { Date() }
}
