import IssuerCore
import Logging
import Postgres

/// Everything the application needs, built once by `issuer serve` (or a test) and handed to
/// `buildApplication`. Nothing below reads global state.
public struct IssuerDependencies: Sendable {
    public var configuration: Configuration
    public var pool: ConnectionPool
    public var logger: Logger
    public var metrics: ServerMetrics

    public init(configuration: Configuration, pool: ConnectionPool, logger: Logger, metrics: ServerMetrics = ServerMetrics()) {
        self.configuration = configuration
        self.pool = pool
        self.logger = logger
        self.metrics = metrics
    }
}
