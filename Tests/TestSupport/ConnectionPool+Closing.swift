import Postgres

extension ConnectionPool {
    /// Runs `body` with this pool, then closes it whichever way `body` ended: a test that fails
    /// by throwing still gives its connections back, so the shared cluster's connection slots
    /// are not held by a failed test until the process exits.
    @discardableResult
    public func closing<Result>(
        isolation: isolated (any Actor)? = #isolation, _ body: (ConnectionPool) async throws -> Result
    ) async throws -> Result {
        try await Self.closing([self]) { try await body($0[0]) }
    }

    /// `closing` for several pools at once (several processes' pools on one database).
    @discardableResult
    public static func closing<Result>(
        _ pools: [ConnectionPool], isolation: isolated (any Actor)? = #isolation,
        _ body: ([ConnectionPool]) async throws -> Result
    ) async throws -> Result {
        let result: Result
        do {
            result = try await body(pools)
        } catch {
            for pool in pools { await pool.close() }
            throw error
        }
        for pool in pools { await pool.close() }
        return result
    }
}
