/// What one janitor sweep (or a run of them, `SessionJanitor.sweepBacklog`) deleted.
public struct JanitorSweep: Sendable, Equatable {
    /// Refresh tokens deleted.
    public var refreshTokens = 0
    /// Sessions deleted, with whatever tokens they still had.
    public var sessions = 0
    /// False when some kind of row stopped at the sweep's batch limit with its last batch full:
    /// more had expired than one sweep deletes.
    public var finished = true
}
