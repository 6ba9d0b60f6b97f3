import Foundation
import Logging
import Synchronization

/// A private PostgreSQL cluster in a directory of ours, run with the system's server binaries
/// and reachable only through a Unix socket inside that directory (no TCP port).
///
/// This is the embedded default (docs/reference.md, "The embedded database"), and the test suite's throwaway cluster. When the process
/// runs as root, the cluster runs as the `postgres` OS user, because `initdb` refuses root; when
/// that user cannot reach the requested directory (root in `/root/issuer`), the cluster lives in
/// a directory it can reach, linked from the requested one (see `EmbeddedPostgres+Placement`).
/// The process that starts the cluster, or takes over one whose owner was killed, stops it on
/// exit (see `EmbeddedPostgres+Ownership`).
/// Inside it, the issuer connects as the role `issuer`, which owns the database `issuer` and is
/// not a superuser, as in production.
public final class EmbeddedPostgres: Sendable {
    /// How durable the cluster is. Tests trade crash safety for speed.
    public enum Durability: Sendable {
        case durable
        case throwaway
    }

    /// The cluster's data directory, where it really is (after relocation, see
    /// `EmbeddedPostgres+Placement`); its Unix socket lives here too.
    public let directory: URL
    /// The directory asked for (`.data/postgres`); the same as `directory` unless relocated.
    public let requestedDirectory: URL
    /// The role the issuer connects as.
    public let role = "issuer"
    private let durability: Durability
    let logger: Logger
    private let osUser: String?
    /// Whether this object started the server (or took it over), and so must stop it.
    private let started = LockedFlag()
    /// The open ownership lock file while this object owns the cluster (see `EmbeddedPostgres+Ownership`).
    let ownershipLock = Mutex<Int32?>(nil)

    /// Touches nothing yet; `start(database:)` creates and runs the cluster. `fallbackRoot` is
    /// where a cluster the `postgres` user could not reach at `directory` goes instead;
    /// `formerRoots`, where earlier versions put such clusters (a link into one is still followed).
    public init(
        directory: URL, durability: Durability = .durable, logger: Logger = Logger(label: "issuer.embedded-postgres"),
        fallbackRoot: URL = EmbeddedPostgres.defaultFallbackRoot, formerRoots: [URL] = EmbeddedPostgres.formerFallbackRoots
    ) {
        let osUser = geteuid() == 0 ? "postgres" : nil
        self.requestedDirectory = directory.standardizedFileURL
        self.directory = Self.placement(
            for: directory.standardizedFileURL, osUser: osUser, fallbackRoot: fallbackRoot.standardizedFileURL,
            formerRoots: formerRoots.map(\.standardizedFileURL))
        self.durability = durability
        self.logger = logger
        self.osUser = osUser
    }

    /// A libpq key=value connection string for `database` as the issuer's role.
    public func conninfo(database: String) -> String {
        "host='\(directory.path)' port=5432 user=\(role) dbname='\(database)'"
    }

    /// Creates the cluster if the directory holds none, starts it unless it is already running,
    /// and makes sure the issuer's role and database exist. Blocks while the server starts; call
    /// it before serving, or through `startInBackground()` from async code.
    public func start(database: String = "issuer") throws {
        let binaries = try PostgresBinaries.locate()
        try prepareDirectory()
        if !FileManager.default.fileExists(atPath: directory.appendingPathComponent("PG_VERSION").path) {
            logger.info("creating embedded PostgreSQL cluster", metadata: ["directory": "\(directory.path)"])
            try run([
                binaries.initdb, "--pgdata", directory.path, "--username", "postgres",
                "--auth", "trust", "--encoding", "UTF8", "--locale", "C", "--no-instructions",
            ] + (durability == .throwaway ? ["--no-sync"] : []), what: "initdb")
        }
        var owner = try tryTakeOwnership()
        var running = try isRunning(binaries)
        if !owner && !running {
            // The owner is between starting and stopping it: wait for one or the other.
            let deadline = Date().addingTimeInterval(60)
            while !owner && !running && Date() < deadline {
                Thread.sleep(forTimeInterval: 0.1)
                owner = try tryTakeOwnership()
                running = try isRunning(binaries)
            }
            guard owner || running else {
                throw EmbeddedPostgresError.commandFailed("pg_ctl start", "another process holds \(ownershipLockPath) but the cluster does not run")
            }
        }
        if running && owner {
            // No live process owns a running cluster: its owner was killed (docs/reference.md, "Faults and bad input"). Take it
            // over, so it is stopped when we stop.
            logger.notice("embedded PostgreSQL left running by a process that is gone; taking it over", metadata: ["directory": "\(directory.path)"])
            started.set(true)
        } else if running {
            logger.info("embedded PostgreSQL already running under another issuer process; reusing it", metadata: ["directory": "\(directory.path)"])
        } else {
            var options = "-c listen_addresses='' -c unix_socket_directories='\(directory.path)' -c unix_socket_permissions=0700 -c port=5432"
            if durability == .throwaway {
                options += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=1000"
            }
            try run([
                binaries.pgCtl, "--pgdata", directory.path, "--log", directory.appendingPathComponent("server.log").path,
                "--wait", "--timeout", "60", "--options", options, "start",
            ], what: "pg_ctl start")
            started.set(true)
        }
        do {
            try bootstrap(binaries, database: database)
        } catch {
            // A cluster this process started is not left running behind a failed start.
            stop()
            throw error
        }
    }

    /// `start()` off the cooperative thread pool.
    public func startInBackground(database: String = "issuer") async throws {
        try await Self.offloaded { try self.start(database: database) }
    }

    /// Stops the server if this object started it (fast shutdown: sessions are disconnected,
    /// committed work is kept). Safe to call twice.
    public func stop() {
        defer { releaseOwnership() }
        guard started.exchange(false), let binaries = try? PostgresBinaries.locate() else { return }
        do {
            try run([binaries.pgCtl, "--pgdata", directory.path, "--mode", "fast", "--wait", "--timeout", "60", "stop"], what: "pg_ctl stop")
            logger.info("embedded PostgreSQL stopped")
        } catch {
            logger.error("could not stop embedded PostgreSQL", metadata: ["error": "\(error)"])
        }
    }

    /// `stop()` off the cooperative thread pool.
    public func stopInBackground() async {
        try? await Self.offloaded { self.stop() }
    }

    /// Stops the server whoever started it: for tests that take the database away on purpose.
    public func forceStop() throws {
        let binaries = try PostgresBinaries.locate()
        try run([binaries.pgCtl, "--pgdata", directory.path, "--mode", "fast", "--wait", "stop"], what: "pg_ctl stop")
    }

    /// Creates a database owned by the issuer's role (for tests: one per suite).
    ///
    /// - Parameter locale: the new database's collation and character classes when not the
    ///   cluster's `C` (e.g. `C.UTF-8`, for a test that needs a locale which folds case beyond ASCII).
    public func createDatabase(_ name: String, locale: String? = nil) throws {
        let binaries = try PostgresBinaries.locate()
        let options = locale.map { " TEMPLATE template0 LOCALE '\($0)'" } ?? ""
        try psql(binaries, "CREATE DATABASE \"\(name)\" OWNER \(role)\(options)")
    }

    private func bootstrap(_ binaries: PostgresBinaries, database: String) throws {
        try psql(binaries, """
            DO $$ BEGIN
              IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '\(role)') THEN
                CREATE ROLE \(role) LOGIN;
              END IF;
            END $$;
            """)
        let exists = try psql(binaries, "SELECT 1 FROM pg_database WHERE datname = '\(database)'")
        if exists.trimmingCharacters(in: .whitespacesAndNewlines) != "1" {
            try psql(binaries, "CREATE DATABASE \"\(database)\" OWNER \(role)")
        }
    }

    @discardableResult
    private func psql(_ binaries: PostgresBinaries, _ sql: String) throws -> String {
        try run([
            binaries.psql, "--no-psqlrc", "--quiet", "--tuples-only", "--no-align", "--set", "ON_ERROR_STOP=1",
            "--host", directory.path, "--port", "5432", "--username", "postgres", "--dbname", "postgres",
            "--command", sql,
        ], what: "psql")
    }

    private func isRunning(_ binaries: PostgresBinaries) throws -> Bool {
        // pg_ctl status: 0 running, 3 not running, 4 no data directory.
        let output = try CommandRunner.run([binaries.pgCtl, "--pgdata", directory.path, "status"], as: osUser)
        return output.status == 0
    }

    private func prepareDirectory() throws {
        let fileManager = FileManager.default
        if osUser != nil, let destination = Self.symbolicLinkDestination(requestedDirectory), destination.path != directory.path {
            throw EmbeddedPostgresError.foreignLink(requestedDirectory.path, destination.path)
        }
        // Its parent (`.data`) is never followed as a link either: root would create and hand
        // over a directory wherever it pointed.
        let parent = requestedDirectory.deletingLastPathComponent()
        if osUser != nil, let destination = Self.symbolicLinkDestination(parent) {
            throw EmbeddedPostgresError.foreignLink(parent.path, destination.path)
        }
        if let osUser, directory.path != requestedDirectory.path, Self.symbolicLinkDestination(requestedDirectory)?.path != directory.path {
            try prepareRelocated(requested: requestedDirectory, osUser: osUser)
        }
        try fileManager.createDirectory(at: directory, withIntermediateDirectories: true)
        if osUser != nil {
            // Root hands the directory to `postgres`: only an empty one or a cluster, never
            // whatever a path happens to hold.
            let contents = try fileManager.contentsOfDirectory(atPath: directory.path)
            guard contents.isEmpty || contents.contains("PG_VERSION") else {
                throw EmbeddedPostgresError.notACluster(directory.path)
            }
        }
        try fileManager.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path)
        if let osUser {
            let chown = try CommandRunner.run(["/bin/chown", "-R", "\(osUser):", directory.path])
            guard chown.status == 0 else { throw EmbeddedPostgresError.commandFailed("chown", chown.diagnostics) }
            // The server user must be able to reach its directory through every parent.
            var parent = directory.deletingLastPathComponent()
            while parent.path != "/" {
                if let attributes = try? fileManager.attributesOfItem(atPath: parent.path),
                   let mode = attributes[.posixPermissions] as? Int, mode & 0o001 == 0 {
                    throw EmbeddedPostgresError.unreachableDirectory(parent.path)
                }
                parent = parent.deletingLastPathComponent()
            }
        }
    }

    @discardableResult
    private func run(_ arguments: [String], what: String) throws -> String {
        let output = try CommandRunner.run(arguments, as: osUser)
        guard output.status == 0 else {
            throw EmbeddedPostgresError.commandFailed(what, output.diagnostics)
        }
        return output.output
    }

    private static func offloaded<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            // A plain thread, not the cooperative pool: this blocks for as long as the server
            // takes to start.
            Thread.detachNewThread {
                continuation.resume(with: Result { try body() })
            }
        }
    }
}

/// Why the embedded cluster could not be run.
public enum EmbeddedPostgresError: Error, CustomStringConvertible, Sendable {
    case serverNotInstalled
    case commandFailed(String, String)
    case unreachableDirectory(String)
    case relocationConflict(String, String)
    case foreignLink(String, String)
    case notACluster(String)

    /// One line for the operator, naming the fix where there is one.
    public var description: String {
        switch self {
        case .serverNotInstalled:
            return "PostgreSQL server binaries not found (pg_config --bindir, /usr/lib/postgresql/*/bin); "
                + "install them with `scripts/bootstrap` or `apt-get install postgresql`, or set ISSUER_DATABASE_URL"
        case .commandFailed(let what, let output):
            return "\(what) failed: \(output)"
        case .unreachableDirectory(let path):
            return "the postgres OS user cannot enter \(path); choose a data directory it can reach"
        case .relocationConflict(let path, let other):
            return "\(path) already holds the relocated cluster of \(other); remove it or use another data directory"
        case .foreignLink(let link, let destination):
            return "\(link) is a symbolic link to \(destination), not to a cluster this issuer relocated; remove the link"
        case .notACluster(let path):
            return "\(path) holds files but no PostgreSQL cluster; empty it or use another data directory"
        }
    }
}
