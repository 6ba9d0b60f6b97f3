import Foundation
import Postgres
import Testing
import TestSupport

@Suite("Typed parameters and rows")
struct ValueCodingTests {
    @Test("text, integers, bool, double round-trip through bound parameters")
    func scalars() async throws {
        try await TestCluster.withFreshPool(size: 2) { pool in
            let text = "O'Brien; DROP TABLE x; -- ünïcødé 🍎"
            let row = try #require(try await pool.query(
                "SELECT $1::text AS text, $2::bigint AS big, $3::int AS small, $4::boolean AS yes, $5::boolean AS no, $6::float8 AS fraction",
                [text, Int64.max, Int32.min, true, false, 0.25]).single)
            #expect(try row.decode(String.self, column: "text") == text)
            #expect(try row.decode(Int64.self, column: "big") == Int64.max)
            #expect(try row.decode(Int32.self, column: "small") == Int32.min)
            #expect(try row.decode(Bool.self, column: "yes") == true)
            #expect(try row.decode(Bool.self, column: "no") == false)
            #expect(try row.decode(Double.self, column: "fraction") == 0.25)
        }
    }

    @Test("bytea keeps every byte value, zero included")
    func bytea() async throws {
        try await TestCluster.withFreshPool(size: 2) { pool in
            let bytes = (0...255).map(UInt8.init) + [0, 0, 255]
            let row = try #require(try await pool.query("SELECT $1::bytea AS bytes, octet_length($1::bytea) AS length", [bytes]).single)
            #expect(try row.decode([UInt8].self, column: "bytes") == bytes)
            #expect(try row.decode(Data.self, column: "bytes") == Data(bytes))
            #expect(try row.decode(Int.self, column: "length") == bytes.count)
        }
    }

    @Test("uuid and timestamptz (microseconds, UTC)")
    func uuidAndTimestamp() async throws {
        try await TestCluster.withFreshPool(size: 2) { pool in
            let id = UUID()
            let instant = Date(timeIntervalSince1970: 1_795_000_000.123456)
            let row = try #require(try await pool.query(
                "SELECT $1::uuid AS id, $2::timestamptz AS instant, $2::timestamptz + interval '1 day' AS next_day, extract(epoch FROM $2::timestamptz) AS epoch",
                [id, instant]).single)
            #expect(try row.decode(UUID.self, column: "id") == id)
            let decoded = try row.decode(Date.self, column: "instant")
            #expect(abs(decoded.timeIntervalSince1970 - instant.timeIntervalSince1970) < 0.000_002)
            let nextDay = try row.decode(Date.self, column: "next_day")
            #expect(abs(nextDay.timeIntervalSince(decoded) - 86_400) < 0.000_002)
            #expect(abs(try row.decode(Double.self, column: "epoch") - instant.timeIntervalSince1970) < 0.000_002)
        }
    }

    @Test("NULL decodes as nil, and as an error for a non-optional")
    func nulls() async throws {
        try await TestCluster.withFreshPool(size: 2) { pool in
            let none: String? = nil
            let row = try #require(try await pool.query("SELECT $1::text, NULL::int", [none]).single)
            #expect(try row.decodeIfPresent(String.self, column: "text") == nil)
            #expect(try row.decodeIfPresent(Int.self, column: "int4") == nil)
            #expect(throws: PostgresError.self) { try row.decode(Int.self, column: "int4") }
        }
    }

    @Test("columns by name, affected rows, several rows")
    func rowsAndColumns() async throws {
        try await TestCluster.withFreshPool(size: 2) { pool in
            try await pool.query("CREATE TABLE items (id int PRIMARY KEY, label text NOT NULL)")
            for i in 1...3 {
                let result = try await pool.query("INSERT INTO items VALUES ($1, $2)", [i, "item \(i)"])
                #expect(result.affectedRows == 1)
            }
            let result = try await pool.query("SELECT id, label FROM items ORDER BY id DESC")
            #expect(try result.rows.map { try $0.decode(String.self, column: "label") } == ["item 3", "item 2", "item 1"])
            #expect(try await pool.query("UPDATE items SET label = 'x' WHERE id > $1", [1]).affectedRows == 2)
        }
    }

    @Test("SQLSTATE: a unique violation (with its constraint's name) and a serialization failure are typed")
    func sqlStates() async throws {
        try await TestCluster.withFreshPool(size: 2) { pool in
            try await pool.query("CREATE TABLE uniques (value text UNIQUE)")
            try await pool.query("INSERT INTO uniques VALUES ('a')")
            let unique = await #expect(throws: PostgresError.self) {
                try await pool.query("INSERT INTO uniques VALUES ('a')")
            }
            #expect(unique?.sqlState == .uniqueViolation)
            // Named, so that a store decides by the constraint and never by the message's text.
            #expect(unique?.constraint == "uniques_value_key")
            #expect(PostgresError.unavailable("x").constraint == nil)

            // A real serialization failure: two serializable transactions that each read what the
            // other writes.
            try await pool.query("CREATE TABLE ledger (account int, amount int)")
            try await pool.query("INSERT INTO ledger VALUES (1, 10), (2, 10)")
            let failure = try await Self.writeSkew(pool: pool)
            #expect(failure?.sqlState == .serializationFailure)
            // The connections that saw the error are usable again: the pool rolled back what the
            // failed body left open.
            #expect(try await pool.query("SELECT count(*) AS count FROM uniques").single!.decode(Int.self, column: "count") == 1)
        }
    }

    @Test("a transaction commits when its body returns and rolls back when it throws")
    func transactions() async throws {
        try await TestCluster.withFreshPool(size: 2) { pool in
            try await pool.query("CREATE TABLE events (name text)")
            try await pool.transaction { connection in
                try connection.query("INSERT INTO events VALUES ($1)", ["committed"])
            }
            struct Abort: Error {}
            await #expect(throws: Abort.self) {
                try await pool.transaction { connection in
                    try connection.query("INSERT INTO events VALUES ($1)", ["rolled back"])
                    throw Abort()
                }
            }
            let names = try await pool.query("SELECT name FROM events").rows.map { try $0.decode(String.self, column: "name") }
            #expect(names == ["committed"])
        }
    }

    /// Runs the classic write-skew pair on two connections and answers the error of the one
    /// that PostgreSQL aborts.
    static func writeSkew(pool: ConnectionPool) async throws -> PostgresError? {
        let gate = AsyncGate(parties: 2)
        let outcomes = try await withThrowingTaskGroup(of: PostgresError?.self) { group in
            for account in [1, 2] {
                group.addTask {
                    do {
                        try await pool.withConnection { connection in
                            try connection.execute("BEGIN ISOLATION LEVEL SERIALIZABLE")
                            _ = try connection.query("SELECT sum(amount) FROM ledger")
                            gate.arriveAndWait()
                            _ = try connection.query("INSERT INTO ledger VALUES ($1, -20)", [account])
                            try connection.execute("COMMIT")
                        }
                        return nil
                    } catch let error as PostgresError {
                        return error
                    }
                }
            }
            return try await group.reduce(into: [PostgresError?]()) { $0.append($1) }
        }
        return outcomes.compactMap { $0 }.first
    }
}

/// A blocking barrier for bodies that run on the pool's threads.
final class AsyncGate: Sendable {
    private let condition = NSCondition()
    private let parties: Int
    nonisolated(unsafe) private var arrived = 0

    init(parties: Int) { self.parties = parties }

    func arriveAndWait() {
        condition.lock()
        arrived += 1
        condition.broadcast()
        while arrived < parties { condition.wait() }
        condition.unlock()
    }
}

@Suite("Error classification")
struct ErrorClassificationTests {
    @Test("connection exceptions are unavailability, except a protocol violation, which is our bug", arguments: [
        ("08006", true), ("08001", true), ("57P01", true), ("57P03", true), ("08P01", false), ("23505", false), ("42P01", false),
    ])
    func unavailable(state: String, unavailable: Bool) {
        #expect(PostgresError.server(sqlState: SQLState(rawValue: state), message: "x").isUnavailable == unavailable)
    }

    @Test("a statement bound with the wrong number of parameters is a server error, not an outage")
    func wrongParameterCount() async throws {
        try await TestCluster.withFreshPool(size: 1) { pool throws in
            let error = await #expect(throws: PostgresError.self) {
                try await pool.withConnection { connection in
                    _ = try connection.query("SELECT $1::int", [1])
                    // The same text, now prepared, bound with two values.
                    _ = try connection.query("SELECT $1::int", [1, 2])
                }
            }
            #expect(error?.isUnavailable == false)
            #expect(try await pool.query("SELECT 1 AS one").single?.decode(Int.self, column: "one") == 1, "the pool recovers")
        }
    }
}
