import ArgumentParser
import Foundation
import IssuerCore
import IssuerStorage
import Postgres

/// `issuer migrate`: applies pending migrations, or lists them with `--status`, which exits 5
/// while any is pending so that a deploy script can wait for the migration job (docs/cli.md).
/// Safe to re-run and to run from several processes at once.
struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Apply pending database migrations (built in, or from ISSUER_MIGRATIONS_DIR).",
        discussion: "With --status, exits 5 when migrations are pending, 0 when none is.")

    @Flag(help: "List applied and pending migrations instead of applying them.")
    var status = false

    @OptionGroup var output: OutputOptions

    @OptionGroup(title: "Settings (each overrides its environment variable)")
    var settings: SettingsOptions

    func run() async throws {
        let configuration = try ConfigurationLoader.load(settings)
        let logger = ConfigurationLoader.bootstrapLogging(configuration)
        let database = try await DatabaseTarget.open(configuration, logger: logger, embedded: .admin(environmentFile: settings.environmentFile.path))
        do {
            let migrations = try IssuerMigrations.selected(directory: configuration.migrationsDirectory)
            let migrator = Migrator(pool: database.pool, logger: logger)
            if status {
                let entries = try await migrator.status(migrations)
                show(entries)
                await database.shutdown()
                if entries.contains(where: { $0.appliedAt == nil }) { throw CommandFailure(.pending, nil) }
                return
            }
            let applied = try await migrator.migrate(migrations)
            if output.isJSON {
                JSONValue.object(["applied": .array(applied.map { .string($0.fileStem) })]).print()
            } else {
                print(applied.isEmpty ? "No pending migrations." : "Applied \(applied.count) migration(s): \(applied.map(\.fileStem).joined(separator: ", ")).")
            }
        } catch let failure as CommandFailure {
            throw failure
        } catch {
            await database.shutdown()
            var failure = CommandFailure(error)
            failure.command = "migrate"
            throw failure
        }
        await database.shutdown()
    }

    private func show(_ entries: [Migrator.Status]) {
        guard output.isJSON else {
            for entry in entries {
                let state = entry.appliedAt.map { "applied \($0.ISO8601Format())" } ?? "pending"
                print("\(entry.migration.fileStem.padding(toLength: 40, withPad: " ", startingAt: 0))  \(state)")
            }
            return
        }
        JSONValue.object([
            "migrations": .array(entries.map { entry in
                .object([
                    "version": .number(entry.migration.version), "name": .string(entry.migration.fileStem),
                    "state": .string(entry.appliedAt == nil ? "pending" : "applied"), "applied_at": .date(entry.appliedAt),
                ])
            }),
            "pending": .number(entries.count { $0.appliedAt == nil }),
        ]).print()
    }
}
