import ArgumentParser
import Foundation
import IssuerCore
import Postgres

/// `issuer migrate` (SPEC §6): applies pending migrations, or lists them with `--status`.
/// Safe to re-run and to run from several processes at once.
struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Apply pending database migrations (built in, or from ISSUER_MIGRATIONS_DIR).")

    @Flag(help: "List applied and pending migrations instead of applying them.")
    var status = false

    @OptionGroup(title: "Settings (each overrides its environment variable)")
    var settings: SettingsOptions

    func run() async throws {
        let configuration = try ConfigurationLoader.load(settings)
        let logger = ConfigurationLoader.bootstrapLogging(configuration)
        let database = try await DatabaseTarget.open(configuration, logger: logger)
        do {
            let migrations = try IssuerMigrations.selected(directory: configuration.migrationsDirectory)
            let migrator = Migrator(pool: database.pool, logger: logger)
            if status {
                for entry in try await migrator.status(migrations) {
                    let state = entry.appliedAt.map { "applied \($0.ISO8601Format())" } ?? "pending"
                    print("\(entry.migration.fileStem.padding(toLength: 40, withPad: " ", startingAt: 0))  \(state)")
                }
            } else {
                let applied = try await migrator.migrate(migrations)
                print(applied.isEmpty ? "No pending migrations." : "Applied \(applied.count) migration(s): \(applied.map(\.fileStem).joined(separator: ", ")).")
            }
        } catch {
            await database.shutdown()
            FileHandle.standardError.write(Data("issuer migrate: \(error)\n".utf8))
            throw ExitCode(1)
        }
        await database.shutdown()
    }
}
