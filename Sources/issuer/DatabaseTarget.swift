import Foundation
import IssuerCore
import Logging
import Postgres

/// The database a command talks to: the operator's `ISSUER_DATABASE_URL`, or the embedded
/// cluster under `.data/postgres` (SPEC §8), started here and stopped by `shutdown()`.
struct DatabaseTarget {
    let pool: ConnectionPool
    private let embedded: EmbeddedPostgres?

    static func open(_ configuration: Configuration, logger: Logger) async throws -> DatabaseTarget {
        if let url = configuration.databaseURL {
            return DatabaseTarget(pool: ConnectionPool(conninfo: url.revealed, size: configuration.databasePoolSize, logger: logger), embedded: nil)
        }
        let directory = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
            .appendingPathComponent(".data/postgres", isDirectory: true)
        let embedded = EmbeddedPostgres(directory: directory, logger: logger)
        logger.info("no ISSUER_DATABASE_URL: using the embedded PostgreSQL", metadata: ["directory": "\(directory.path)"])
        try await embedded.startInBackground()
        let pool = ConnectionPool(conninfo: embedded.conninfo(database: "issuer"), size: configuration.databasePoolSize, logger: logger)
        return DatabaseTarget(pool: pool, embedded: embedded)
    }

    /// Closes the pool (if still open) and stops the embedded cluster if we started it.
    func shutdown() async {
        await pool.close()
        await embedded?.stopInBackground()
    }
}
