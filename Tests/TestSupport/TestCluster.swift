import Foundation
import IssuerCore
import IssuerStorage
import Postgres
import Synchronization

/// The test suite's throwaway PostgreSQL: one private cluster per test process, started on first
/// use and stopped when the process exits, with a fresh database for each test that asks.
///
/// There is deliberately no setting to point the tests at an existing server: tests count rows
/// (sessions, users, revocations) and expect only their own, so each needs a database of its own,
/// and tests that stop or restart a cluster start one of their own anyway, so PostgreSQL's
/// binaries are needed whatever the setting (CONTRIBUTING.md, "Writing tests").
public enum TestCluster {
    private static let state = Mutex<Task<EmbeddedPostgres, any Error>?>(nil)

    /// A database address where nothing listens: connecting is refused at once.
    public static let unreachableDatabase = "postgresql://issuer@127.0.0.1:1/issuer?connect_timeout=2"

    /// A connection string for a new, empty database owned by the issuer's (non-superuser) role.
    /// `locale`: the database's own, when a test needs one other than the cluster's `C`.
    public static func freshDatabase(locale: String? = nil) async throws -> String {
        let cluster = try await shared()
        let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased()
        try await Offload.run { try cluster.createDatabase(name, locale: locale) }
        return cluster.conninfo(database: name)
    }

    /// A pool on a fresh database. Its calls wait up to a minute, not production's 5 s: the
    /// tests that use it are not about deadlines (those build their own pools), and the first
    /// test phase starts some three hundred tests at once on two cores, where a suite's parallel
    /// cases can queue for a connection longer than 5 s (a clean-clone CI run saw that).
    public static func freshPool(size: Int = 4, timeout: Duration = .seconds(60), locale: String? = nil) async throws -> ConnectionPool {
        ConnectionPool(conninfo: try await freshDatabase(locale: locale), size: size, timeout: timeout)
    }

    /// Runs `body` with `freshPool(size:timeout:)`'s pool, closed whichever way `body` ends.
    @discardableResult
    public static func withFreshPool<Result>(
        size: Int = 4, timeout: Duration = .seconds(60), isolation: isolated (any Actor)? = #isolation,
        _ body: (ConnectionPool) async throws -> Result
    ) async throws -> Result {
        try await freshPool(size: size, timeout: timeout).closing(body)
    }

    /// Runs `body` with a pool on a fresh database that has the issuer's own migrations applied
    /// (the schema of docs/design.md), closed whichever way `body` ends.
    @discardableResult
    public static func withMigratedPool<Result>(
        size: Int = 4, locale: String? = nil, isolation: isolated (any Actor)? = #isolation,
        _ body: (ConnectionPool) async throws -> Result
    ) async throws -> Result {
        try await freshPool(size: size, locale: locale).closing { pool in
            try await Migrator(pool: pool).migrate(try IssuerMigrations.builtIn())
            return try await body(pool)
        }
    }

    /// Runs `body` with a new directory for a cluster the test starts itself (one it may stop or
    /// restart without touching the shared one); afterwards stops whatever still runs there (a
    /// test that failed before its own stop) and removes the directory, whichever way `body` ended.
    public static func withPrivateClusterDirectory<Result>(
        _ name: String, isolation: isolated (any Actor)? = #isolation, _ body: (URL) async throws -> Result
    ) async throws -> Result {
        let directory = TestDirectories.make(name)
        let result: Result
        do {
            result = try await body(directory)
        } catch {
            await removePrivateCluster(directory)
            throw error
        }
        await removePrivateCluster(directory)
        return result
    }

    private static func removePrivateCluster(_ directory: URL) async {
        if FileManager.default.fileExists(atPath: directory.appendingPathComponent("postmaster.pid").path) {
            _ = try? await Offload.run { try EmbeddedPostgres(directory: directory).forceStop() }
        }
        TestDirectories.remove(directory)
    }

    private static func shared() async throws -> EmbeddedPostgres {
        let task = state.withLock { task in
            if let task { return task }
            let newTask = Task { try await start() }
            task = newTask
            return newTask
        }
        return try await task.value
    }

    private static func start() async throws -> EmbeddedPostgres {
        TestDirectories.removeStaleClusters()
        let cluster = EmbeddedPostgres(directory: TestDirectories.make("cluster"), durability: .throwaway)
        try await cluster.startInBackground(database: "issuer")
        stopAtExit(cluster)
        return cluster
    }

    private static let clusterToStop = Mutex<EmbeddedPostgres?>(nil)

    private static func stopAtExit(_ cluster: EmbeddedPostgres) {
        clusterToStop.withLock { $0 = cluster }
        atexit {
            let cluster = TestCluster.clusterToStop.withLock { $0 }
            cluster?.stop()
            if let cluster { try? FileManager.default.removeItem(at: cluster.directory.deletingLastPathComponent()) }
        }
    }
}
