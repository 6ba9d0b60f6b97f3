import ArgumentParser
import Foundation
import IssuerCore
import IssuerStorage
import IssuerServer
import Logging

/// Turns the environment, an `--env-file` and flags into a `Configuration`, or stops the
/// process as docs/configuration.md says: exit status 1 and one line on stderr naming the setting.
enum ConfigurationLoader {
    static func load(_ options: SettingsOptions) throws -> Configuration {
        try load(overrides: options.overrides, environmentFile: options.environmentFile.path)
    }

    /// The environment, then the `environmentFile`'s values over it, then `overrides` (flags,
    /// keyed by variable) over both.
    static func load(overrides: [String: String], environmentFile: String? = nil) throws -> Configuration {
        try load(environment: settings(overrides: overrides, environmentFile: environmentFile), overrides: overrides)
    }

    /// The variables a command's configuration is built from: the environment, the
    /// `environmentFile`'s values over it, `overrides` over both.
    static func settings(overrides: [String: String], environmentFile: String?) throws -> [String: String] {
        try environment(reading: environmentFile).merging(overrides) { _, flag in flag }
    }

    /// `environment` (from ``settings(overrides:environmentFile:)``) validated; `overrides` are
    /// the flags among it, warned about when they carry a secret.
    static func load(environment: [String: String], overrides: [String: String] = [:]) throws -> Configuration {
        do {
            let configuration = try Configuration(environment: environment)
            CommandLineSecrets.warn(overrides)
            return configuration
        } catch let error as ConfigurationError {
            throw CommandFailure.failed(error.description)
        }
    }

    /// The process's environment with the file's assignments laid over it.
    ///
    /// The file wins, as a unit's `EnvironmentFile=` wins over the environment systemd itself
    /// runs with: `--env-file /etc/issuer/issuer.env` means "as the service sees it", and a
    /// stale `ISSUER_DATABASE_URL` left in an operator's shell must not quietly point the
    /// command at another database. For the same reason a secret the file sets in either form
    /// (`ISSUER_SECRET` or `ISSUER_SECRET_FILE`) drops both forms from the inherited environment.
    /// Flags still win over the file: they are the most explicit thing on the command line.
    static func environment(reading path: String?) throws -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        guard let path else { return environment }
        let file: EnvironmentFile
        do {
            file = try EnvironmentFile(contentsOf: path)
        } catch {
            throw CommandFailure.usage("cannot read --env-file \(path): \((error as NSError).localizedDescription)")
        }
        for line in file.ignored {
            FileHandle.standardError.write(Data("issuer: warning: \(path):\(line): not a valid variable name; ignored, as systemd ignores it\n".utf8))
        }
        for setting in ConfigurationSetting.all {
            guard let fileVariable = setting.fileVariable,
                  file.values[setting.variable] != nil || file.values[fileVariable] != nil else { continue }
            environment[setting.variable] = nil
            environment[fileVariable] = nil
        }
        return environment.merging(file.values) { _, fromFile in fromFile }
    }

    /// Installs the process-wide log handler (once: swift-log allows one bootstrap).
    static func bootstrapLogging(_ configuration: Configuration) -> Logger {
        let level = configuration.logLevel
        switch configuration.logFormat {
        case .text:
            LoggingSystem.bootstrap { label in
                var handler = TextLogHandler(label: label)
                handler.logLevel = level
                return handler
            }
        case .json:
            LoggingSystem.bootstrap { label in
                var handler = JSONLogHandler(label: label)
                handler.logLevel = level
                return handler
            }
        }
        return Logger(label: "issuer")
    }
}
