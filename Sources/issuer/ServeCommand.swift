import ArgumentParser
import Foundation
import Hummingbird
import IssuerCore
import IssuerStorage
import IssuerServer
import Logging
import Postgres

/// `issuer serve` (docs/reference.md, "Admin CLI"): applies pending migrations, then serves until SIGTERM or SIGINT,
/// drains in-flight requests, closes the database and exits 0.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the server (applies pending migrations first unless --no-migrate).")

    @Flag(help: "Do not apply pending migrations at start.")
    var noMigrate = false

    @OptionGroup(title: "Settings (each overrides its environment variable)")
    var settings: SettingsOptions

    func run() async throws {
        // Already decided in `Issuer.main`, before the first await; this answers the same layout.
        let threads = ServerThreads.prepare()
        let configuration = try ConfigurationLoader.load(settings)
        let logger = ConfigurationLoader.bootstrapLogging(configuration)
        var listeners = [(configuration.host, configuration.port, "ISSUER_PORT")]
        if let port = configuration.operationsPort { listeners.append((configuration.operationsHost, port, "ISSUER_OPS_PORT")) }
        for (host, port, setting) in listeners {
            if let problem = ListenAddressCheck.problem(host: host, port: port, setting: setting) {
                logger.critical("\(problem)")
                throw CommandFailure(.failed, nil)
            }
        }
        logger.info("thread pools sized to this process's cores", metadata: [
            "cores": "\(threads.cores)", "tasks": "\(threads.eventLoopsRunTasks ? "event-loops" : "cooperative-pool")",
        ])
        // Settings that work but are unsafe for a deployment: the checks `issuer doctor` runs.
        for check in DoctorCommand.settingsChecks(configuration) where check.status != .ok {
            logger.warning("\(check.reason)", metadata: ["check": "\(check.name)"])
        }
        try prepareKeyRing(configuration, logger: logger)
        let database: DatabaseTarget
        do {
            database = try await DatabaseTarget.open(configuration, logger: logger, embedded: .createIfMissing)
        } catch {
            logger.critical("cannot start the database", metadata: ["error": "\(error)"])
            throw CommandFailure(CommandFailure(error).status, nil)
        }
        do {
            if !noMigrate {
                try await Migrator(pool: database.pool, logger: logger)
                    .migrate(try IssuerMigrations.selected(directory: configuration.migrationsDirectory))
            }
            let secret = try await ServerSecret.load(configured: configuration.secret, store: ServerSecretStore(pool: database.pool))
            var dependencies = IssuerDependencies(
                configuration: configuration, pool: database.pool, logger: logger, serverSecret: secret, clock: SystemClock())
            dependencies.buildInfo = BuildInfo(version: IssuerVersion.release, commit: buildCommit)
            let app = buildApplication(dependencies)
            try await app.runService()
        } catch {
            logger.critical("issuer stopped on an error", metadata: ["error": "\(error)"])
            await database.shutdown()
            // 4 when the database did not answer (a deploy can tell "retry later" from "fix me").
            throw CommandFailure(CommandFailure(error).status, nil)
        }
        await database.shutdown()
        logger.info("issuer stopped")
    }

    /// docs/reference.md, "The embedded database": on the embedded default an empty ring is created; with an external database
    /// (production) an empty or invalid ring stops the server, because keys are an operator's
    /// decision, made once with `issuer keys init` and shared by every process.
    private func prepareKeyRing(_ configuration: Configuration, logger: Logger) throws {
        guard try KeyRingPreflight.check(configuration).isEmpty else { return }
        let store = KeyRingDirectory(directory: configuration.keysDirectory)
        let result = try KeyRotation(store: store, policy: KeyRotationPolicy(configuration: configuration), clock: SystemClock()).initialize()
        logger.info("created the development key ring", metadata: ["directory": "\(store.directory.path)", "result": "\(result.message)"])
    }
}
