import Foundation
@testable import Postgres
import Testing
import TestSupport

@Suite("Migrator")
struct MigratorTests {
    // Deliberately not idempotent: applying either twice would fail.
    let migrations = [
        Migration(version: 1, name: "create_widgets", sql: "CREATE TABLE widgets (id int PRIMARY KEY);"),
        Migration(version: 2, name: "seed_widgets", sql: "INSERT INTO widgets VALUES (1); INSERT INTO widgets VALUES (2);"),
    ]

    @Test("fresh apply, then an idempotent re-run")
    func applyAndRerun() async throws {
        try await TestCluster.withFreshPool { pool in
            let migrator = Migrator(pool: pool)
            #expect(try await migrator.migrate(migrations).map(\.version) == [1, 2])
            #expect(try await migrator.migrate(migrations).isEmpty)
            #expect(try await pool.query("SELECT count(*) AS count FROM widgets").single!.decode(Int.self, column: "count") == 2)
            let recorded = try await pool.query("SELECT version, checksum FROM schema_migrations ORDER BY version").rows
            #expect(try recorded.map { try $0.decode(String.self, column: "checksum") } == migrations.map(\.checksum))
            let status = try await migrator.status(migrations)
            #expect(status.allSatisfy { $0.appliedAt != nil })
        }
    }

    @Test("a later migration is applied on the next run; status shows it pending before")
    func pendingThenApplied() async throws {
        try await TestCluster.withFreshPool { pool in
            let migrator = Migrator(pool: pool)
            try await migrator.migrate([migrations[0]])
            let status = try await migrator.status(migrations)
            #expect(status.map { $0.appliedAt != nil } == [true, false])
            #expect(try await migrator.migrate(migrations).map(\.version) == [2])
        }
    }

    @Test("status only reads: on a fresh database it creates nothing, it answers while another process holds the migration lock, and a read-only role may ask")
    func statusOnlyReads() async throws {
        try await TestCluster.withFreshPool { pool in
            let migrator = Migrator(pool: pool)
            #expect(try await migrator.status(migrations).allSatisfy { $0.appliedAt == nil })
            let table = try await pool.query("SELECT to_regclass('schema_migrations') IS NOT NULL AS present").single
            #expect(try table?.decode(Bool.self, column: "present") == false, "status created schema_migrations")
            try await migrator.migrate([migrations[0]])
            // Another process migrating holds the advisory lock for as long as it takes.
            try await pool.withConnection { connection in
                _ = try connection.query("SELECT pg_advisory_lock($1)", [Migrator.advisoryLockKey])
            }
            let status = try await ConnectionPool(conninfo: try await Self.readOnlyConninfo(pool), size: 1, timeout: .seconds(10))
                .closing { reader in try await Migrator(pool: reader).status(migrations) }
            #expect(status.map { $0.appliedAt != nil } == [true, false])
        }
    }

    /// A role that may only read the pool's database, and a connection string for it: made by
    /// the cluster's superuser (the issuer's own role may not create roles), over the same socket.
    static func readOnlyConninfo(_ pool: ConnectionPool) async throws -> String {
        let role = "reader_" + UUID().uuidString.prefix(8).lowercased()
        let database = try #require(try await pool.query("SELECT current_database() AS name").single?.decode(String.self, column: "name"))
        let host = try #require(try await pool.withConnection { $0.setting("host") })
        let port = try await pool.withConnection { $0.setting("port") } ?? "5432"
        let server = "host=\(host) port=\(port) dbname=\(database)"
        try await ConnectionPool(conninfo: server + " user=postgres", size: 1).closing { superuser in
            try await superuser.withConnection { connection in
                try connection.execute("""
                    CREATE ROLE \(role) LOGIN;
                    GRANT CONNECT ON DATABASE \(database) TO \(role);
                    GRANT USAGE ON SCHEMA public TO \(role);
                    GRANT SELECT ON ALL TABLES IN SCHEMA public TO \(role);
                    """)
            }
        }
        return server + " user=\(role)"
    }

    @Test("an applied migration whose file changed is refused, and nothing else is applied")
    func checksumMismatch() async throws {
        try await TestCluster.withFreshPool { pool in
            let migrator = Migrator(pool: pool)
            try await migrator.migrate([migrations[0]])
            let edited = [
                Migration(version: 1, name: "create_widgets", sql: "CREATE TABLE widgets (id bigint PRIMARY KEY);"),
                migrations[1],
            ]
            await #expect(throws: MigrationError.checksumMismatch(version: 1, name: "create_widgets")) {
                try await migrator.migrate(edited)
            }
            await #expect(throws: MigrationError.self) { try await migrator.status(edited) }
            #expect(try await pool.query("SELECT count(*) AS count FROM widgets").single!.decode(Int.self, column: "count") == 0)
            #expect("\(MigrationError.checksumMismatch(version: 1, name: "create_widgets"))".contains("changed after it was applied"))
        }
    }

    @Test("a failing migration rolls back whole and is not recorded")
    func failingMigrationRollsBack() async throws {
        try await TestCluster.withFreshPool { pool in
            let broken = [
                migrations[0],
                Migration(version: 2, name: "half", sql: "INSERT INTO widgets VALUES (7); SELECT * FROM no_such_table;"),
            ]
            await #expect(throws: PostgresError.self) { try await Migrator(pool: pool).migrate(broken) }
            #expect(try await pool.query("SELECT count(*) AS count FROM widgets").single!.decode(Int.self, column: "count") == 0)
            let versions = try await pool.query("SELECT version FROM schema_migrations").rows.map { try $0.decode(Int.self, column: "version") }
            #expect(versions == [1])
        }
    }

    @Test("concurrent runners in separate pools apply each migration exactly once")
    func concurrentRunners() async throws {
        let conninfo = try await TestCluster.freshDatabase()
        let pools = (0..<4).map { _ in ConnectionPool(conninfo: conninfo, size: 1) }
        try await ConnectionPool.closing(pools) { pools in
            let applied = try await withThrowingTaskGroup(of: [Int].self) { group in
                for pool in pools {
                    group.addTask { try await Migrator(pool: pool).migrate(migrations).map(\.version) }
                }
                return try await group.reduce(into: [Int]()) { $0 += $1 }
            }
            #expect(applied.sorted() == [1, 2])
            #expect(try await pools[0].query("SELECT count(*) AS count FROM widgets").single!.decode(Int.self, column: "count") == 2)
        }
    }

    @Test("file names parse into versions; duplicates and bad names are refused")
    func fileNames() throws {
        let migration = try Migration(fileName: "0042_add_sessions.sql", sql: "SELECT 1")
        #expect(migration.version == 42)
        #expect(migration.name == "add_sessions")
        #expect(migration.fileStem == "0042_add_sessions")
        #expect(throws: MigrationError.badFileName("notes.sql")) { try Migration(fileName: "notes.sql", sql: "") }
        #expect(throws: MigrationError.badFileName("0001_x.txt")) { try Migration(fileName: "0001_x.txt", sql: "") }
        #expect(throws: MigrationError.duplicateVersion(1)) {
            try Migration.ordered([migrations[0], Migration(version: 1, name: "again", sql: "")])
        }
    }

    @Test("a directory of migrations loads in version order")
    func loadDirectory() throws {
        let directory = try TestDirectories.created("migrations")
        defer { TestDirectories.remove(directory) }
        try "SELECT 2;".write(to: directory.appendingPathComponent("0010_second.sql"), atomically: true, encoding: .utf8)
        try "SELECT 1;".write(to: directory.appendingPathComponent("0002_first.sql"), atomically: true, encoding: .utf8)
        try "not sql".write(to: directory.appendingPathComponent("README.md"), atomically: true, encoding: .utf8)
        let loaded = try Migration.load(directory: directory)
        #expect(loaded.map(\.version) == [2, 10])
        #expect(loaded.map(\.sql) == ["SELECT 1;", "SELECT 2;"])
        try? FileManager.default.removeItem(at: directory.deletingLastPathComponent())
    }
}
