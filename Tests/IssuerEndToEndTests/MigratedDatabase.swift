import Foundation
import Postgres
import Testing
import TestSupport

/// A fresh database migrated by the built `issuer migrate` (docs/reference.md, "Admin CLI"), for the operator commands'
/// tests, with a pool on it for the rows the test writes and reads itself.
enum MigratedDatabase {
    /// Runs `body` with the database's connection string and a pool on it; closes the pool
    /// whichever way `body` ends.
    static func with<Result>(
        isolation: isolated (any Actor)? = #isolation, _ body: (_ database: String, _ pool: ConnectionPool) async throws -> Result
    ) async throws -> Result {
        let database = try await TestCluster.freshDatabase()
        let migrated = try await IssuerCommand.run(["migrate", "--database-url", database], in: FileManager.default.temporaryDirectory)
        #expect(migrated.code == 0, "\(migrated.output)")
        // The deadline only ends a hung call (the tests beside this one may starve it for seconds).
        return try await ConnectionPool(conninfo: database, size: 2, timeout: .seconds(60)).closing { pool in try await body(database, pool) }
    }
}
