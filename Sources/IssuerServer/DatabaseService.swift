import Postgres
import ServiceLifecycle

/// Closes the connection pool when the service group shuts down. Hummingbird stops services in
/// reverse order of start and starts the HTTP server last, so in-flight requests have drained
/// by the time this closes the pool (docs/reference.md, "Faults and bad input", SIGTERM).
struct DatabaseService: Service {
    let pool: ConnectionPool

    func run() async throws {
        try? await gracefulShutdown()
        await pool.close()
    }
}
