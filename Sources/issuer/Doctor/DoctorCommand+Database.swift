import Foundation
import IssuerCore
import IssuerStorage
import Logging
import Postgres

extension DoctorCommand {
    /// `database` (reachable, by the same connection `serve` would make) and `migrations` (none
    /// pending, none edited after it was applied). A database that does not answer within the
    /// pool's deadline (5 s) fails; pending migrations only warn, since `serve` applies them at
    /// start unless it runs with `--no-migrate`. With `environmentFile` (`--env-file`), the
    /// database is the one the file names, never an embedded cluster (docs/cli.md, "`--env-file FILE`").
    static func databaseChecks(_ configuration: Configuration, environmentFile: String?) async -> [DoctorCheck] {
        var settings = configuration
        settings.databasePoolSize = 1
        var logger = Logger(label: "issuer")
        logger.logLevel = .critical
        let target = configuration.databaseURL == nil ? "the embedded cluster in \(DatabaseTarget.embeddedDirectory.path)" : "ISSUER_DATABASE_URL"
        let database: DatabaseTarget
        do {
            database = try await DatabaseTarget.open(settings, logger: logger, embedded: .admin(environmentFile: environmentFile))
        } catch {
            return [.fail("database", CommandFailure(error).reason ?? "\(error)"), notChecked]
        }
        let statuses: [Migrator.Status]
        do {
            let migrations = try IssuerMigrations.selected(directory: configuration.migrationsDirectory)
            statuses = try await Migrator(pool: database.pool, logger: logger).status(migrations)
        } catch let error as MigrationError {
            await database.shutdown()
            return [.ok("database", "\(target) answers"), .fail("migrations", "\(error)")]
        } catch {
            await database.shutdown()
            let reason = (error as? PostgresError)?.isUnavailable == true ? "\(target) does not answer: \(error)" : "\(target): \(error)"
            return [.fail("database", reason.escapingControlCharacters), notChecked]
        }
        await database.shutdown()
        let pending = statuses.filter { $0.appliedAt == nil }.map(\.migration.fileStem)
        let migrations: DoctorCheck = pending.isEmpty
            ? .ok("migrations", "all \(statuses.count) applied")
            : .warn("migrations", "\(pending.count) of \(statuses.count) pending (\(pending.joined(separator: ", "))); `issuer migrate` applies them, as does `issuer serve` without --no-migrate")
        return [.ok("database", "\(target) answers"), migrations]
    }

    private static var notChecked: DoctorCheck { .warn("migrations", "not checked: the database does not answer") }
}
