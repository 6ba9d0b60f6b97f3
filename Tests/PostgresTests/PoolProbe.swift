import Postgres

/// What the pool tests that watch links open, break and recover share.
enum PoolProbe {
    /// `body`'s answer, tried again while the database is unavailable (at most five times).
    static func eventually<T>(_ body: () async throws -> T) async throws -> T {
        for _ in 0..<4 {
            do {
                return try await body()
            } catch let error as PostgresError where error.isUnavailable {
                continue
            }
        }
        return try await body()
    }

    /// Uses every connection of the pool at once, so each has an open link (and `sql` prepared).
    static func openEveryConnection(
        _ pool: ConnectionPool, sql: String = "SELECT pg_sleep(0.2)", _ parameters: [any PostgresEncodable & Sendable] = []
    ) async throws {
        // Held together by a sleep in one body per connection, so that no connection serves two.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<pool.size {
                group.addTask {
                    try await pool.withConnection { connection in
                        try connection.query(sql, parameters)
                        try connection.query("SELECT pg_sleep(0.2)")
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    /// Runs `body(i)` for every `i` below `count`, `inFlight` at a time: many more callers than a
    /// small pool has connections, yet none queued behind so many others that a loaded machine
    /// (the whole test run shares two cores) pushes its wait past the pool's deadline, which
    /// covers the wait for a connection.
    static func concurrently(
        _ count: Int, inFlight: Int = 24, _ body: @escaping @Sendable (Int) async throws -> Void
    ) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for first in 0..<min(inFlight, count) {
                group.addTask {
                    for i in stride(from: first, to: count, by: inFlight) { try await body(i) }
                }
            }
            try await group.waitForAll()
        }
    }
}
