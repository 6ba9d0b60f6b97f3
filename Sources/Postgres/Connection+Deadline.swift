extension Connection {
    /// Runs one call of the pool, which must end by `deadline` (docs/reference.md, "Faults and bad input": a silent database is
    /// answered with `unavailable` within about 5 s, never a hang).
    ///
    /// The pool calls `watch.begin(until:)` first, and its sweeper `watch.expireIfDue(_:)` from
    /// another thread; past the deadline that shuts the socket down under a blocked libpq call. Whatever the body then
    /// reports, the link is closed (the next call opens a new one) and the caller is told the
    /// database is unavailable.
    func run<T>(until deadline: ContinuousClock.Instant, _ body: (Connection) throws -> T) throws -> T {
        try ensureConnected(until: deadline)
        guard ContinuousClock.now < deadline, let socket, watch.arm(socket: socket) else {
            _ = watch.end()
            throw PostgresError.unavailable("no answer from the database within the deadline")
        }
        let outcome = Result { try body(self) }
        // Still watched: a ROLLBACK on a link that just went silent must not hang either.
        returnToIdle()
        if watch.end() {
            close()
            // A body that returned in time keeps its answer; only the link is lost.
            if case .failure = outcome {
                throw PostgresError.unavailable("no answer from the database within the deadline")
            }
        }
        return try outcome.get()
    }

    /// Runs a call that may legitimately take long (a migration, or waiting for another process's
    /// migration): no deadline and no statement timeout. TCP keepalives still find a dead peer.
    func runWithoutDeadline<T>(connectingUntil deadline: ContinuousClock.Instant, _ body: (Connection) throws -> T) throws -> T {
        try ensureConnected(until: deadline)
        try execute("SET statement_timeout = 0")
        let outcome = Result { try body(self) }
        returnToIdle()
        // Back to the session's own timeout (the one given at connect) for the next caller.
        if isHealthy, (try? execute("RESET statement_timeout")) == nil { close() }
        return try outcome.get()
    }
}
