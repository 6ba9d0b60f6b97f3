import Foundation
@testable import Postgres
import Testing
import TestSupport

/// docs/reference.md, "Faults and bad input", "the database going silent": packets dropped, nothing refused. The proxy's kernel
/// keeps acknowledging what the client sends, so only the pool's own deadline can notice.
@Suite("A database that goes silent")
struct SilentDatabaseTests {
    @Test("calls on a silent database fail with unavailable within the deadline, and the same pool recovers")
    func silentThenBack() async throws {
        let (proxy, conninfo) = try FreezableProxy.inFront(of: try await TestCluster.freshDatabase())
        defer { proxy.stop() }
        try await ConnectionPool(conninfo: conninfo, size: 2, timeout: .seconds(2)).closing { pool in
            try await PoolProbe.openEveryConnection(pool)

            proxy.freeze()
            // The first two find an open link and block in libpq reading the answer; the next ones
            // must open a new link, which the silent server never completes.
            for _ in 0..<4 {
                let outcome = await Outcome.of(within: 6) { try await pool.query("SELECT 1") }
                #expect(outcome == .unavailable)
            }

            proxy.thaw()
            // Recovered by itself: the same pool answers again, on every connection (each opens a new
            // link). A loaded machine may need more than one try to connect within 2 s.
            let answer = try await PoolProbe.eventually { try await pool.query("SELECT 42 AS answer").single?.decode(Int.self, column: "answer") }
            #expect(answer == 42)
            try await PoolProbe.eventually { try await PoolProbe.openEveryConnection(pool) }
            #expect(pool.statistics == .init(size: 2, inUse: 0, waiting: 0))
        }
    }

    @Test("closing the pool while a call is stuck on a silent database ends: the call's deadline still holds")
    func closeWithStuckCall() async throws {
        let (proxy, conninfo) = try FreezableProxy.inFront(of: try await TestCluster.freshDatabase())
        defer { proxy.stop() }
        let pool = ConnectionPool(conninfo: conninfo, size: 1, timeout: .seconds(1))
        try await PoolProbe.openEveryConnection(pool)
        proxy.freeze()
        let stuck = Task { await Outcome.of(within: 6) { try await pool.query("SELECT 1") } }
        try await Task.sleep(for: .milliseconds(200))
        let closed = await WithinBound.result(seconds: 6) { await pool.close() }
        #expect(closed != nil, "close() returned")
        #expect(await stuck.value == .unavailable)
    }

    @Test("waiting for a connection is bounded in number and in time")
    func waitersAreBounded() async throws {
        let (proxy, conninfo) = try FreezableProxy.inFront(of: try await TestCluster.freshDatabase())
        defer { proxy.stop() }
        try await ConnectionPool(conninfo: conninfo, size: 1, timeout: .seconds(10), maxWaiting: 2).closing { pool in
            try await pool.query("SELECT 1")

            proxy.freeze()
            let stuck = Task { await Outcome.of(within: 30) { try await pool.query("SELECT 1") } }
            try await Self.until { pool.statistics.inUse == 1 }
            let waiters = (0..<2).map { _ in Task { await Outcome.of(within: 30) { try await pool.query("SELECT 1") } } }
            try await Self.until { pool.statistics.waiting == 2 }

            // One more than the bound is refused at once: the two waiters are still there.
            let refused = await Outcome.of(within: 30) { try await pool.query("SELECT 1") }
            #expect(refused == .unavailable)
            #expect(pool.statistics.waiting == 2)

            // The held call and the waiters all end with the deadline instead of queueing for ever.
            #expect(await stuck.value == .unavailable)
            for waiter in waiters { #expect(await waiter.value == .unavailable) }
            #expect(pool.statistics == .init(size: 1, inUse: 0, waiting: 0))

            proxy.thaw()
            #expect(try await pool.query("SELECT 7 AS seven").single?.decode(Int.self, column: "seven") == 7)
        }
    }

    @Test("every session has keepalives, tcp_user_timeout and a statement timeout; an operator's own values win")
    func sessionSettings() async throws {
        let (proxy, conninfo) = try FreezableProxy.inFront(of: try await TestCluster.freshDatabase())
        defer { proxy.stop() }
        try await ConnectionPool(conninfo: conninfo, size: 1, timeout: .milliseconds(2500)).closing { pool in
            let ours = try await pool.withConnection { connection in
                [
                    connection.setting("keepalives"), connection.setting("keepalives_idle"),
                    connection.setting("keepalives_interval"), connection.setting("keepalives_count"),
                    connection.setting("tcp_user_timeout"),
                    try connection.query("SHOW statement_timeout").single?.decode(String.self, column: "statement_timeout"),
                ]
            }
            #expect(ours == ["1", "5", "1", "5", "10000", "2500ms"])
        }

        // The URI form, with the operator's own keepalive and options (the fixed formats stay).
        let user = try #require(ConnectionString.value(of: "user", in: conninfo))
        let database = try #require(ConnectionString.value(of: "dbname", in: conninfo))
        let uri = "postgresql://\(user)@127.0.0.1:\(proxy.port)/\(database)"
            + "?keepalives_idle=30&options=-c%20work_mem%3D8MB%20-c%20statement_timeout%3D7s"
        try await ConnectionPool(conninfo: uri, size: 1).closing { operatorPool in
            let theirs = try await operatorPool.withConnection { connection in
                [
                    connection.setting("keepalives_idle"), connection.setting("tcp_user_timeout"),
                    try connection.query("SHOW work_mem").single?.decode(String.self, column: "work_mem"),
                    try connection.query("SHOW statement_timeout").single?.decode(String.self, column: "statement_timeout"),
                    try connection.query("SHOW DateStyle").single?.decode(String.self, column: "DateStyle"),
                ]
            }
            #expect(theirs == ["30", "10000", "8MB", "7s", "ISO, MDY"])
        }
    }

    @Test("the server cancels a statement past the timeout; an unlimited call (a migration) is not cut")
    func statementTimeout() async throws {
        try await ConnectionPool(conninfo: try await TestCluster.freshDatabase(), size: 1, timeout: .seconds(1)).closing { pool in
            let slow = await Outcome.of(within: 3) { try await pool.query("SELECT pg_sleep(10)") }
            #expect(slow == .unavailable)

            let unlimited = try await pool.withConnection(timeLimit: .unlimited) { connection in
                try connection.query("SELECT pg_sleep(1.5)")
                return try connection.query("SHOW statement_timeout").single?.decode(String.self, column: "statement_timeout")
            }
            #expect(unlimited == "0")
            // The next caller of that connection has the timeout again.
            #expect(try await pool.query("SHOW statement_timeout").single?.decode(String.self, column: "statement_timeout") == "1s")
        }
    }

    /// Waits (without a time assertion) for a condition that the code under test makes true soon.
    static func until(_ condition: () -> Bool) async throws {
        for _ in 0..<400 where !condition() { try await Task.sleep(for: .milliseconds(10)) }
        #expect(condition())
    }
}

/// How a call ended, or that it had not within a bound: a call stuck in libpq never returns, so
/// the test must not wait for it (a task group would).
enum Outcome: Equatable, Sendable {
    case answered, unavailable, other(String), noAnswerInTime

    static func of(within seconds: Double, _ body: @escaping @Sendable () async throws -> Void) async -> Outcome {
        switch await WithinBound.result(seconds: seconds, body) {
        case nil: return .noAnswerInTime
        case .success: return .answered
        case .failure(let error as PostgresError): return error.isUnavailable ? .unavailable : .other("\(error)")
        case .failure(let error): return .other("\(error)")
        }
    }
}
