import ArgumentParser
import Foundation
import IssuerCore

/// `issuer doctor`: checks a deployment as its servers would meet it, one line per check
/// (`ok`, `warn` or `fail` and why), and exits 1 when any check fails, so that a deploy script or
/// a monitoring probe can run it. It reads the settings `serve` reads (environment, `--env-file`,
/// flags) and changes nothing, except that an existing embedded cluster that is stopped is
/// started for the check and stopped again. docs/cli.md lists the checks.
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check a deployment: database, migrations, key ring, providers, settings. Exit 1 on any failure.")

    @Option(
        name: .customLong("rotation-interval"),
        help: ArgumentHelp("how old the active key may get before rotation is due, as `keys rotate --if-older-than` takes it (default 30d)", valueName: "age"),
        transform: { text in
            guard let duration = Duration(compactNotation: text) else {
                throw ValidationError("--rotation-interval must be a positive whole number with one unit: s, m, h or d (e.g. 30d)")
            }
            return duration
        })
    var rotationInterval: Duration = .seconds(30 * 86_400)

    @Option(name: .customLong("timeout"), help: ArgumentHelp("seconds each provider endpoint may take to answer (default 5)", valueName: "seconds"))
    var timeout: Int = 5

    @OptionGroup var output: OutputOptions

    @OptionGroup(title: "Settings (each overrides its environment variable)")
    var settings: SettingsOptions

    func validate() throws {
        guard timeout > 0 else { throw ValidationError("--timeout must be a positive number of seconds") }
    }

    func run() async throws {
        let environmentFile = settings.environmentFile.path
        let environment = try ConfigurationLoader.settings(overrides: settings.overrides, environmentFile: environmentFile)
        let configuration = try ConfigurationLoader.load(environment: environment, overrides: settings.overrides)
        let now = Date()
        var checks = await Self.databaseChecks(configuration, environmentFile: environmentFile)
        let unnamedRing = ConfigurationLoader.unnamedKeyRing(environmentFile: environmentFile, settings: environment)
        checks += Self.keyRingChecks(configuration, unnamed: unnamedRing, rotationInterval: rotationInterval, now: now)
        checks.append(await Self.appleKeysCheck(configuration, timeout: .seconds(timeout)))
        checks += await Self.providerKeysChecks(configuration, timeout: .seconds(timeout))
        checks += Self.settingsChecks(configuration)
        let failed = checks.contains { $0.status == .fail }
        if output.isJSON {
            JSONValue.object(["ok": .bool(!failed), "checks": .array(checks.map(\.json))]).print()
        } else {
            let width = checks.map(\.name.count).max() ?? 0
            for check in checks {
                AdminCommand.show(check.status.rawValue.padding(toLength: 6, withPad: " ", startingAt: 0)
                    + check.name.padding(toLength: width + 2, withPad: " ", startingAt: 0) + check.reason)
            }
        }
        if failed { throw CommandFailure(.failed, nil) }
    }
}
