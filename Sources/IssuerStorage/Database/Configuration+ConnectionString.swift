import IssuerCore
import Postgres

extension Configuration {
    /// Validates every setting (docs/reference.md, "Configuration"), the database URL as libpq
    /// reads it, so that a malformed one stops the process at start, not at the first connection.
    public init(environment: [String: String]) throws {
        try self.init(environment: environment, databaseURLProblem: ConnectionString.problem(in:))
    }
}
