import Foundation
@testable import Postgres
import Testing
import TestSupport

/// The non-blocking path (`Connection+NonBlocking.swift`, read by `AnswerPoller`) over TLS, as a
/// pool meets a managed database: loopback TCP, `sslmode=require`, a server of our own with a
/// certificate made for the test (`TLSCluster`). Answers come either straight from PostgreSQL,
/// whose TLS records hold at most 8 KiB, or through `LargeRecordTLSProxy`, whose records hold
/// 16 KiB, the most TLS allows: then libpq can read a record only in part, and what OpenSSL keeps
/// back never makes the socket readable again. The path reads on while OpenSSL holds bytes for that.
@Suite("Non-blocking queries over TLS")
struct NonBlockingTLSTests {
    /// Where the pool's TLS sessions end.
    enum Route: String, CaseIterable, CustomTestStringConvertible, Sendable {
        /// PostgreSQL itself.
        case server
        /// `LargeRecordTLSProxy`, in front of the same server.
        case largeRecords

        var testDescription: String { rawValue }
    }

    @Test("a pool with sslmode=require talks TLS, and the cluster refuses cleartext")
    func encrypted() async throws {
        try await TLSCluster.with { cluster in
            try await ConnectionPool(conninfo: cluster.url, size: 1, timeout: .seconds(60)).closing { pool in
                let sql = "SELECT ssl, version FROM pg_stat_ssl WHERE pid = pg_backend_pid()"
                // The first use prepares the statement the blocking way; the second goes non-blocking.
                for expectedNonBlocking in [0, 1] {
                    let before = pool.nonBlockingCalls.load(ordering: .relaxed)
                    let row = try #require(try await pool.query(sql).single)
                    #expect(try row.decode(Bool.self, column: "ssl"))
                    #expect(try row.decode(String.self, column: "version").hasPrefix("TLS"))
                    #expect(pool.nonBlockingCalls.load(ordering: .relaxed) - before == expectedNonBlocking)
                }
            }
            // pg_hba.conf has hostssl lines only: a session that got in above was encrypted.
            try await ConnectionPool(conninfo: cluster.url(sslmode: "disable"), size: 1, timeout: .seconds(60)).closing { pool in
                let refused = await #expect(throws: PostgresError.self) { try await pool.query("SELECT 1") }
                // No pg_hba.conf line for cleartext (SQLSTATE 28000): the settings are wrong, not the database away.
                #expect(refused?.isMisconfiguration == true, "\(String(describing: refused))")
            }
        }
    }

    @Test("300 calls, 24 at a time, through a pool of 3 over TLS: each gets its own answer, large ones whole", arguments: Route.allCases)
    func ownAnswers(route: Route) async throws {
        // The deadline only stops a hung call: with the whole test run sharing two cores, 60 s
        // was once not enough for 24 callers queued on 3 connections, and the test is not timed.
        try await Self.withPool(route, size: 3, timeout: .seconds(300)) { pool, proxy in
            let sql = "SELECT $1::int * 2 AS doubled, repeat($2::text, $3::int) AS text"
            // Each connection prepares the statement on its first use, the blocking way.
            try await PoolProbe.openEveryConnection(pool, sql: sql, [0, "x", 1])
            let before = pool.nonBlockingCalls.load(ordering: .relaxed)
            try await PoolProbe.concurrently(300) { i in
                // Every fifteenth answer is 60 KB to 660 KB: tens of records, many reads.
                let repeats = i % 15 == 0 ? 20_000 + i * 701 : 1 + i % 7
                let unit = "\(i % 10)é"
                let row = try #require(try await pool.query(sql, [i, unit, repeats]).single)
                #expect(try row.decode(Int.self, column: "doubled") == i * 2)
                #expect(try row.decode(String.self, column: "text") == String(repeating: unit, count: repeats))
            }
            #expect(pool.nonBlockingCalls.load(ordering: .relaxed) - before == 300, "every call went the non-blocking way")
            #expect(pool.statistics == .init(size: 3, inUse: 0, waiting: 0))
            if let proxy { #expect(proxy.sessionsOpened == 3, "one TLS session per connection, none reopened") }
        }
    }

    @Test("a large parameter is sent whole over TLS, and its echo read whole", arguments: Route.allCases)
    func largeParameter(route: Route) async throws {
        try await Self.withPool(route, size: 1) { pool, _ in
            let sql = "SELECT length($1::text) AS length, $1::text AS echoed"
            _ = try await pool.query(sql, ["warm"])
            // 8 MB, every 8 bytes different: more than the socket buffers take at once, so the
            // request needs several writes (PQflush answers "more to write"), and a piece lost,
            // repeated or moved shows in the echo.
            let large = (0..<1_000_000).map { String(format: "%07d,", $0) }.joined()
            let before = pool.nonBlockingCalls.load(ordering: .relaxed)
            let row = try #require(try await pool.query(sql, [large]).single)
            #expect(try row.decode(Int.self, column: "length") == large.utf8.count)
            #expect(try row.decode(String.self, column: "echoed") == large)
            #expect(pool.nonBlockingCalls.load(ordering: .relaxed) - before == 1)
        }
    }

    /// Two rows in two records: a first row that moves where the second record starts, then a
    /// row that ends a few bytes short of libpq's 16 KiB input buffer, which it therefore never
    /// enlarges. The second record starts 8 KiB or more before the buffer's end, so libpq reads
    /// it only in part, and the end of the answer (ReadyForQuery included) waits in OpenSSL with
    /// nothing more to come on the socket. A reader that stops when libpq's read is done waits
    /// for its deadline; one that reads on while OpenSSL holds bytes is answered at once. The
    /// proxy writes both records together, so that every run finds them in the same place.
    @Test("an answer whose last TLS record outruns libpq's buffer comes without waiting for more bytes")
    func recordPastTheBuffer() async throws {
        try await Self.withPool(.largeRecords, size: 1, timeout: .seconds(30)) { pool, proxy in
            try await PoolProbe.openEveryConnection(pool, sql: Self.rowsSQL, ["1"])
            let before = pool.nonBlockingCalls.load(ordering: .relaxed)
            let buffer = 16_384
            var calls = 0
            for secondRecordAt in [8_200, 12_000, 16_000] {
                for short in [0, 9, 19] {
                    // The answer opens with BindComplete (5 bytes); a row of n bytes of text is an
                    // 11-byte DataRow header and n bytes; CommandComplete ("SELECT 2") and
                    // ReadyForQuery close it in 20 bytes (PostgreSQL docs, "Message Formats").
                    let lengths = [secondRecordAt - 16, buffer - short - 11]
                    let texts = try await Self.rows(of: lengths, from: pool)
                    calls += 1
                    #expect(texts == [
                        String(repeating: "a", count: lengths[0]), String(repeating: "b", count: lengths[1]),
                    ])
                }
            }
            #expect(pool.nonBlockingCalls.load(ordering: .relaxed) - before == calls, "every call went the non-blocking way")
            #expect(proxy?.sessionsOpened == 1, "one TLS session throughout, never reopened")
        }
    }

    /// Decrypted bytes can wait in OpenSSL after any number of reads: libpq 15 takes one record per
    /// read while its buffer has room for less than a record, so an answer of three or more full
    /// records can end a fixed number of extra reads short, and nothing more ever comes on the
    /// socket. The read goes on while OpenSSL still holds bytes (`SSL_pending`).
    @Test("answers of three and more full TLS records come without waiting for more bytes")
    func manyRecordsPastTheBuffer() async throws {
        try await Self.withPool(.largeRecords, size: 1, timeout: .seconds(30)) { pool, _ in
            try await PoolProbe.openEveryConnection(pool, sql: Self.rowsSQL, ["1"])
            for lengths in [[8_984, 32_756], [8_984, 49_140], [100, 16_360, 16_360, 16_360], [40_000, 70_000]] {
                #expect(try await Self.rows(of: lengths, from: pool) == lengths.enumerated().map { index, length in
                    String(repeating: String(UnicodeScalar(UInt8(97 + index))), count: length)
                })
            }
        }
    }

    /// One row per length in `$1` (comma-separated), row i holding that many of the i-th letter.
    static let rowsSQL = """
        SELECT repeat(chr(96 + i::int), n) AS text
        FROM unnest(string_to_array($1::text, ',')::int[]) WITH ORDINALITY AS rows(n, i) ORDER BY i
        """

    /// The texts of `rowsSQL` for `lengths`, which must come within 15 s: a read that waits for
    /// bytes OpenSSL already holds would take the pool's whole 30 s deadline.
    static func rows(of lengths: [Int], from pool: ConnectionPool) async throws -> [String] {
        let rows = try await WithinBound.value(seconds: 15) {
            try await pool.query(rowsSQL, [lengths.map(String.init).joined(separator: ",")]).rows
        }
        return try rows.map { try $0.decode(String.self, column: "text") }
    }

    /// A pool on a fresh TLS cluster along `route`, and the proxy on the way if there is one;
    /// cluster, proxy and pool are gone whichever way `body` ends.
    static func withPool(
        _ route: Route, size: Int, timeout: Duration = .seconds(60),
        _ body: (ConnectionPool, LargeRecordTLSProxy?) async throws -> Void
    ) async throws {
        try await TLSCluster.with { cluster in
            switch route {
            case .server:
                try await ConnectionPool(conninfo: cluster.url, size: size, timeout: timeout).closing { pool in
                    try await body(pool, nil)
                }
            case .largeRecords:
                try await LargeRecordTLSProxy.with(inFrontOf: cluster) { proxy in
                    try await ConnectionPool(conninfo: proxy.url, size: size, timeout: timeout).closing { pool in
                        try await body(pool, proxy)
                    }
                }
            }
        }
    }
}
