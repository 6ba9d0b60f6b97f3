import Foundation

extension Duration {
    /// The duration in seconds, as `Foundation` date arithmetic wants it (used for the docs/reference.md, "Signing keys" key timing).
    ///
    /// Attoseconds are kept so that sub-second durations are not silently rounded away.
    public var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
