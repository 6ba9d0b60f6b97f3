import Foundation
import Postgres
import Synchronization
import Testing
import TestSupport

@Suite("ConnectionPool")
struct ConnectionPoolTests {
    @Test("200 concurrent queries through a pool of 4 all answer correctly")
    func concurrentQueries() async throws {
        // 200 at once on 4 connections is an overload on purpose: on a slow machine the last ones
        // would wait past the 5 s default deadline, which is not what this test is about.
        try await ConnectionPool(conninfo: try await TestCluster.freshDatabase(), size: 4, timeout: .seconds(60)).closing { pool in
            let results = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
                for i in 0..<200 {
                    group.addTask {
                        let row = try await pool.query("SELECT $1::int * 2 AS doubled, pg_backend_pid() AS pid", [i]).single
                        return (i, try #require(row).decode(Int.self, column: "doubled"))
                    }
                }
                return try await group.reduce(into: [Int: Int]()) { $0[$1.0] = $1.1 }
            }
            #expect(results.count == 200)
            #expect(results.allSatisfy { $0.value == $0.key * 2 })
            let backends = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<40 { group.addTask { try await pool.query("SELECT pg_backend_pid() AS pid").single!.decode(column: "pid") } }
                return try await group.reduce(into: Set<Int>()) { $0.insert($1) }
            }
            #expect(backends.count <= 4, "a pool of 4 never opens more than 4 connections")
            #expect(pool.statistics == .init(size: 4, inUse: 0, waiting: 0))
        }
    }

    @Test("blocked queries do not stall unrelated work on the cooperative pool")
    func blockedQueriesDoNotBlockCooperativePool() async throws {
        // As many blocked queries as the cooperative pool has threads: if libpq ran there,
        // nothing else could run until they returned. They block on an advisory lock that the
        // test releases only after the unrelated work has finished, so the order is decided by
        // design, not by timing: with libpq on the cooperative pool this test fails.
        let sleepers = max(2, ProcessInfo.processInfo.activeProcessorCount)
        let conninfo = try await TestCluster.freshDatabase()
        // The queries block until the test says so: a deadline as long as the lock timeout, so a
        // slow machine does not turn the wait into an outage.
        try await ConnectionPool(conninfo: conninfo, size: sleepers + 1, timeout: .seconds(20)).closing { pool in
            try await ConnectionPool(conninfo: conninfo, size: 1).closing { holder in
                try await holder.query("SELECT pg_advisory_lock(42)")
                let order = Mutex<[String]>([])
                async let blocked: Void = withThrowingTaskGroup(of: Void.self) { group in
                    for _ in 0..<sleepers {
                        group.addTask {
                            try await pool.withConnection { connection in
                                // Were these threads the cooperative pool's, nothing could release the
                                // lock; the server-side timeout then fails the test instead of hanging it.
                                try connection.execute("SET lock_timeout = '20s'")
                                try connection.query("SELECT pg_advisory_lock_shared(42), pg_advisory_unlock_shared(42)")
                                try connection.execute("RESET lock_timeout")
                            }
                        }
                    }
                    try await group.waitForAll()
                    order.withLock { $0.append("blocked queries") }
                }
                // Wait until every blocked query really waits inside libpq on the server.
                var waiting = 0
                for _ in 0..<200 where waiting < sleepers {
                    // pg_locks is cluster-wide and other suites run at once: count this database's waiters.
                    waiting = try await holder.query("""
                        SELECT count(*) AS count FROM pg_locks
                        WHERE locktype = 'advisory' AND NOT granted AND objid = 42
                          AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
                        """).single!.decode(Int.self, column: "count")
                    if waiting < sleepers { try await Task.sleep(for: .milliseconds(25)) }
                }
                #expect(waiting == sleepers)
                let unrelated = try await WithinBound.value(seconds: 60) {
                    var ticks = 0
                    for _ in 0..<10 {
                        try await Task.sleep(for: .milliseconds(10))
                        ticks += 1
                    }
                    let answer = try await pool.query("SELECT 42 AS answer").single!.decode(Int.self, column: "answer")
                    order.withLock { $0.append("unrelated work") }
                    return ticks + answer
                }
                try await holder.query("SELECT pg_advisory_unlock(42)")
                try await blocked
                #expect(unrelated == 52)
                #expect(order.withLock { $0 } == ["unrelated work", "blocked queries"])
            }
        }
    }

    @Test("waiting callers are served in turn when every connection is busy")
    func waitersAreServed() async throws {
        let conninfo = try await TestCluster.freshDatabase()
        // Waiters wait as long as the test holds the lock, however slow the machine.
        try await ConnectionPool(conninfo: conninfo, size: 1, timeout: .seconds(30)).closing { pool in
            try await ConnectionPool(conninfo: conninfo, size: 1).closing { holder in
                try await holder.query("SELECT pg_advisory_lock(7)")
                try await withThrowingTaskGroup(of: Void.self) { group in
                    // Occupies the pool's only connection until the lock is released. Child tasks start in
                    // no set order: the waiters are added only once it holds the connection, or one of
                    // them could take it first, finish, and never be seen waiting.
                    group.addTask { try await pool.query("SELECT pg_advisory_lock_shared(7), pg_advisory_unlock_shared(7)") }
                    for _ in 0..<400 where pool.statistics.inUse < 1 { try await Task.sleep(for: .milliseconds(25)) }
                    for _ in 0..<5 { group.addTask { try await pool.query("SELECT 1") } }
                    var waiting = 0
                    for _ in 0..<400 where waiting < 5 {
                        waiting = pool.statistics.waiting
                        if waiting < 5 { try await Task.sleep(for: .milliseconds(25)) }
                    }
                    #expect(waiting == 5)
                    #expect(pool.statistics.inUse == 1)
                    try await holder.query("SELECT pg_advisory_unlock(7)")
                    try await group.waitForAll()
                }
                #expect(pool.statistics == .init(size: 1, inUse: 0, waiting: 0))
            }
        }
    }

    @Test("a closed pool refuses new work")
    func closedPool() async throws {
        let pool = try await TestCluster.freshPool(size: 2)
        try await pool.query("SELECT 1")
        await pool.close()
        await #expect(throws: PostgresError.self) { try await pool.query("SELECT 1") }
    }

    @Test("an unreachable server fails fast with the typed unavailable error")
    func unreachableServer() async throws {
        let directory = try TestDirectories.created("nothing-here")
        defer { TestDirectories.remove(directory) }
        try await ConnectionPool(conninfo: "host=\(directory.path) dbname=none user=none", size: 2).closing { pool in
            let error = await #expect(throws: PostgresError.self) { try await pool.query("SELECT 1") }
            #expect(error?.isUnavailable == true)
        }
    }
}
