import Foundation
@testable import Postgres
import Testing
import TestSupport

/// A statement's later uses on a connection go without blocking a thread (`AnswerPoller`): each
/// caller gets its own answer, whole, and errors and deadlines behave as on the blocking path.
@Suite("Non-blocking queries")
struct NonBlockingQueryTests {
    @Test("500 calls, 24 at a time, through a pool of 3: each gets its own answer, large ones whole")
    func ownAnswers() async throws {
        // The deadline only stops a hung call; under the whole test run on two cores this test
        // has taken 100 s, and it is not timed.
        try await Self.withPool(try await TestCluster.freshDatabase(), size: 3, timeout: .seconds(300)) { pool in
            let sql = "SELECT $1::int * 2 AS doubled, repeat($2::text, $3::int) AS text"
            // Each connection prepares the statement on its first use, the blocking way.
            try await PoolProbe.openEveryConnection(pool, sql: sql, [0, "x", 1])
            let before = pool.nonBlockingCalls.load(ordering: .relaxed)
            try await PoolProbe.concurrently(500) { i in
                // Every tenth answer (and request) spans many reads and writes of the socket.
                let repeats = i % 10 == 0 ? 200_000 : 1
                let row = try #require(try await pool.query(sql, [i, "ab", repeats]).single)
                #expect(try row.decode(Int.self, column: "doubled") == i * 2)
                #expect(try row.decode(String.self, column: "text") == String(repeating: "ab", count: repeats))
            }
            #expect(pool.nonBlockingCalls.load(ordering: .relaxed) - before == 500, "every call went the non-blocking way")
            #expect(pool.statistics == .init(size: 3, inUse: 0, waiting: 0))
        }
    }

    @Test("a large parameter is sent whole")
    func largeParameter() async throws {
        try await Self.withPool(try await TestCluster.freshDatabase(), size: 1, timeout: .seconds(60)) { pool in
            let sql = "SELECT length($1::text) AS length, md5($1::text) AS digest"
            _ = try await pool.query(sql, ["warm"])
            // Larger than a socket buffer: libpq's flush answers "more to write" at least once.
            let large = String(repeating: "0123456789", count: 800_000)
            let row = try #require(try await pool.query(sql, [large]).single)
            #expect(try row.decode(Int.self, column: "length") == large.utf8.count)
            let digest = try #require(try await pool.query("SELECT md5($1::text) AS digest", [large]).single)
            #expect(try row.decode(String.self, column: "digest") == digest.decode(String.self, column: "digest"))
            #expect(pool.nonBlockingCalls.load(ordering: .relaxed) >= 1)
        }
    }

    @Test("a server error is typed, and the connection goes on answering")
    func serverError() async throws {
        try await Self.withPool(try await TestCluster.freshDatabase(), size: 1, timeout: .seconds(60)) { pool in
            let sql = "SELECT 10 / $1::int AS quotient"
            #expect(try await pool.query(sql, [5]).single?.decode(Int.self, column: "quotient") == 2)
            let before = pool.nonBlockingCalls.load(ordering: .relaxed)
            do {
                try await pool.query(sql, [0])
                Issue.record("division by zero answered")
            } catch let error as PostgresError {
                guard case .server(let state, _, _) = error else { Issue.record("not a server error: \(error)"); return }
                #expect(state == SQLState(rawValue: "22012"))
            }
            #expect(try await pool.query(sql, [2]).single?.decode(Int.self, column: "quotient") == 5)
            #expect(pool.nonBlockingCalls.load(ordering: .relaxed) - before == 2)
        }
    }

    @Test("COPY is refused (its link closed), and the pool goes on answering")
    func copyRefused() async throws {
        try await Self.withPool(try await TestCluster.freshDatabase(), size: 1, timeout: .seconds(60)) { pool in
            let copy = "COPY (SELECT 1) TO STDOUT"
            for _ in 0..<3 {
                await #expect(throws: PostgresError.self) { try await pool.query(copy) }
                let two = try await pool.query("SELECT 2 AS two").single?.decode(Int.self, column: "two")
                #expect(two == 2)
            }
        }
    }

    @Test("a silent database fails a non-blocking call within the deadline; the pool recovers")
    func silentDatabase() async throws {
        let (proxy, conninfo) = try FreezableProxy.inFront(of: try await TestCluster.freshDatabase())
        defer { proxy.stop() }
        try await Self.withPool(conninfo, size: 2, timeout: .seconds(2)) { pool in
            try await PoolProbe.openEveryConnection(pool, sql: "SELECT 1 AS one")
            proxy.freeze()
            let before = pool.nonBlockingCalls.load(ordering: .relaxed)
            // 2 s of deadline and then some: a test process starved by hundreds of others may be late to
            // sweep; a lost wake-up would never end at all.
            let outcome = await Outcome.of(within: 15) { try await pool.query("SELECT 1 AS one") }
            #expect(outcome == .unavailable)
            #expect(pool.nonBlockingCalls.load(ordering: .relaxed) - before == 1, "the call was sent the non-blocking way")
            proxy.thaw()
            let answer = try await PoolProbe.eventually { try await pool.query("SELECT 1 AS one").single?.decode(Int.self, column: "one") }
            #expect(answer == 1)
        }
    }

    @Test("the server's statement timeout ends a non-blocking call as unavailable")
    func statementTimeout() async throws {
        try await Self.withPool(try await TestCluster.freshDatabase(), size: 1, timeout: .seconds(1)) { pool in
            let sql = "SELECT pg_sleep($1::float8)"
            try await pool.query(sql, [0.0])
            // 1 s of deadline, well short of the 10 s sleep: room for a starved test process to be late.
            let slow = await Outcome.of(within: 8) { try await pool.query(sql, [10.0]) }
            #expect(slow == .unavailable)
            #expect(try await pool.query(sql, [0.0]).rows.count == 1, "the pool answers again")
        }
    }

    /// A pool for `body` alone, closed whether `body` returns or throws.
    static func withPool(
        _ conninfo: String, size: Int, timeout: Duration = .seconds(5), _ body: (ConnectionPool) async throws -> Void
    ) async throws {
        try await ConnectionPool(conninfo: conninfo, size: size, timeout: timeout).closing(body)
    }
}
