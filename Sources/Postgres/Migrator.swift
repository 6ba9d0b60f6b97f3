import Foundation
import Logging

/// Applies numbered migrations, each in its own transaction, recording each with a checksum in
/// `schema_migrations`.
///
/// Many issuer processes may start at once against one database; they serialize on a
/// session-level advisory lock, so each migration is applied exactly once and every process
/// sees the same, complete schema when `migrate` returns.
public struct Migrator: Sendable {
    /// An applied or pending migration, as `issuer migrate --status` lists it.
    public struct Status: Sendable, Equatable {
        /// The migration, as given to `status(_:)`.
        public let migration: Migration
        /// When it was applied, or nil if pending.
        public let appliedAt: Date?
    }

    /// Any constant works; this one is "issuer" in ASCII, so it is recognisable in `pg_locks`.
    static let advisoryLockKey: Int64 = 0x69_73_73_75_65_72

    private let pool: ConnectionPool
    private let logger: Logger

    /// Every statement runs on `pool`; each applied migration is logged to `logger`.
    public init(pool: ConnectionPool, logger: Logger = Logger(label: "issuer.migrations")) {
        self.pool = pool
        self.logger = logger
    }

    /// Applies what is pending, in order, and answers the migrations it applied.
    @discardableResult
    public func migrate(_ migrations: [Migration]) async throws -> [Migration] {
        let migrations = try Migration.ordered(migrations)
        let logger = self.logger
        return try await pool.withConnection(timeLimit: .unlimited) { connection in
            try Self.withLock(connection) {
                let applied = try Self.appliedChecksums(connection)
                try Self.verify(migrations, against: applied)
                var done: [Migration] = []
                for migration in migrations where applied[migration.version] == nil {
                    try connection.transaction { connection in
                        try connection.execute(migration.sql)
                        try connection.query(
                            "INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)",
                            [migration.version, migration.name, migration.checksum])
                    }
                    logger.info("applied migration", metadata: ["version": "\(migration.version)", "name": "\(migration.name)"])
                    done.append(migration)
                }
                return done
            }
        }
    }

    /// Every known migration with when it was applied; refuses a changed applied file.
    ///
    /// Only reads (docs/reference.md, "Admin CLI"): it creates nothing (a database never migrated
    /// has every migration pending), takes no lock, so it answers at once while another process
    /// migrates (each migration commits alone: it sees those committed), and works with a role
    /// that may only read.
    public func status(_ migrations: [Migration]) async throws -> [Status] {
        let migrations = try Migration.ordered(migrations)
        return try await pool.withConnection { connection in
            let exists = try connection.query("SELECT to_regclass('schema_migrations') IS NOT NULL AS present")
                .rows.first?.decode(Bool.self, column: "present") ?? false
            var applied: [Int: (String, Date)] = [:]
            if exists {
                for row in try connection.query("SELECT version, checksum, applied_at FROM schema_migrations").rows {
                    applied[try row.decode(column: "version")] = (try row.decode(column: "checksum"), try row.decode(column: "applied_at"))
                }
            }
            try Self.verify(migrations, against: applied.mapValues(\.0))
            return migrations.map { Status(migration: $0, appliedAt: applied[$0.version]?.1) }
        }
    }

    private static func withLock<T>(_ connection: Connection, _ body: () throws -> T) throws -> T {
        try connection.query("SELECT pg_advisory_lock($1)", [advisoryLockKey])
        defer { _ = try? connection.query("SELECT pg_advisory_unlock($1)", [advisoryLockKey]) }
        try ensureTable(connection)
        return try body()
    }

    private static func ensureTable(_ connection: Connection) throws {
        // IF NOT EXISTS alone races between processes (both see no table, one fails on the
        // catalog's unique index); callers that create it hold the advisory lock.
        try connection.execute("""
            CREATE TABLE IF NOT EXISTS schema_migrations (
                version    integer PRIMARY KEY,
                name       text NOT NULL,
                checksum   text NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now()
            )
            """)
    }

    private static func appliedChecksums(_ connection: Connection) throws -> [Int: String] {
        var applied: [Int: String] = [:]
        for row in try connection.query("SELECT version, checksum FROM schema_migrations").rows {
            applied[try row.decode(column: "version")] = try row.decode(column: "checksum")
        }
        return applied
    }

    private static func verify(_ migrations: [Migration], against applied: [Int: String]) throws {
        for migration in migrations {
            if let checksum = applied[migration.version], checksum != migration.checksum {
                throw MigrationError.checksumMismatch(version: migration.version, name: migration.name)
            }
        }
    }
}
