/// What one janitor sweep (or a run of them, `SessionJanitor.sweepBacklog`) deleted.
public struct JanitorSweep: Sendable, Equatable {
    /// Refresh tokens deleted.
    public var refreshTokens = 0
    /// Sessions deleted, with whatever tokens they still had.
    public var sessions = 0
    /// Spent hosted-flow states deleted.
    public var authorizationStates = 0
    /// DPoP proofs deleted from the `jti` memory.
    public var dpopProofs = 0
    /// False when some kind of row stopped at the sweep's batch limit with its last batch full:
    /// more had expired than one sweep deletes.
    public var finished = true

    /// Rows deleted, every kind together.
    public var total: Int { refreshTokens + sessions + authorizationStates + dpopProofs }

    /// `other`'s counts added to these, and `other`'s `finished`: the state after both.
    func followed(by other: JanitorSweep) -> JanitorSweep {
        JanitorSweep(
            refreshTokens: refreshTokens + other.refreshTokens, sessions: sessions + other.sessions,
            authorizationStates: authorizationStates + other.authorizationStates, dpopProofs: dpopProofs + other.dpopProofs,
            finished: other.finished)
    }
}
