import Foundation
import IssuerCore
import Logging
import Postgres

/// The database a command talks to: the operator's `ISSUER_DATABASE_URL`, or the embedded
/// cluster under `.data/postgres` (docs/configuration.md), started here if it is not running
/// and stopped by `shutdown()` if this process started it.
struct DatabaseTarget {
    /// What to do with no `ISSUER_DATABASE_URL`.
    enum Embedded: Equatable {
        /// `issuer serve`: create the cluster if there is none, so the server runs with no
        /// configuration at all.
        case createIfMissing
        /// The admin commands: use a cluster only if one exists where they run. An empty one
        /// created here would answer "no such user" about a user who exists in the database the
        /// operator meant, which is worse than refusing.
        case existingOnly
        /// An admin command given `--env-file`: the file stands for the service's settings, so a
        /// database it does not name is a gap in the file, never the cluster of the directory the
        /// command happens to run in (docs/cli.md, "`--env-file FILE`").
        case refused(environmentFile: String)

        /// The admin commands' policy: `.refused` with an environment file, else `.existingOnly`.
        static func admin(environmentFile: String?) -> Embedded {
            environmentFile.map { .refused(environmentFile: $0) } ?? .existingOnly
        }
    }

    let pool: ConnectionPool
    private let embedded: EmbeddedPostgres?

    static func open(_ configuration: Configuration, logger: Logger, embedded policy: Embedded) async throws -> DatabaseTarget {
        if let url = configuration.databaseURL {
            return DatabaseTarget(pool: ConnectionPool(conninfo: url.revealed, size: configuration.databasePoolSize, logger: logger), embedded: nil)
        }
        if case .refused(let environmentFile) = policy {
            throw ConfigurationLoader.missingDatabase(in: environmentFile)
        }
        let embedded = EmbeddedPostgres(directory: embeddedDirectory, logger: logger)
        if policy == .existingOnly {
            guard hasCluster(embedded) else { throw noDatabase }
        }
        logger.info("no ISSUER_DATABASE_URL: using the embedded PostgreSQL", metadata: ["directory": "\(embedded.requestedDirectory.path)"])
        try await embedded.startInBackground()
        let pool = ConnectionPool(conninfo: embedded.conninfo(database: "issuer"), size: configuration.databasePoolSize, logger: logger)
        return DatabaseTarget(pool: pool, embedded: embedded)
    }

    /// `.data/postgres` of the working directory, where `issuer serve` keeps its cluster.
    static var embeddedDirectory: URL {
        URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(".data/postgres", isDirectory: true)
    }

    /// Whether an initialized cluster is there: `initdb` writes `PG_VERSION` first. Looks where
    /// the cluster really lives, which differs from `.data/postgres` when it was relocated for
    /// the `postgres` user; touches nothing.
    static func hasCluster(_ embedded: EmbeddedPostgres) -> Bool {
        FileManager.default.fileExists(atPath: embedded.directory.appendingPathComponent("PG_VERSION").path)
    }

    /// The refusal of an admin command with nothing to talk to, with what to do about it.
    static var noDatabase: CommandFailure {
        .usage("no ISSUER_DATABASE_URL, and no embedded cluster in \(embeddedDirectory.path); set ISSUER_DATABASE_URL, pass --env-file with the service's environment file (e.g. /etc/issuer/issuer.env), or run this where `issuer serve` keeps its embedded cluster")
    }

    /// Closes the pool (if still open) and stops the embedded cluster if we started it.
    func shutdown() async {
        await pool.close()
        await embedded?.stopInBackground()
    }
}
