import ArgumentParser
import Foundation
import IssuerCore
import IssuerServer
import Logging

/// Turns the environment plus flags into a `Configuration`, or stops the process the way SPEC §2
/// asks: exit status 1 and one line on stderr naming the setting.
enum ConfigurationLoader {
    static func load(_ options: SettingsOptions) throws -> Configuration {
        try load(overrides: options.overrides)
    }

    /// The environment with `overrides` (flags, keyed by variable) laid over it.
    static func load(overrides: [String: String]) throws -> Configuration {
        let environment = ProcessInfo.processInfo.environment.merging(overrides) { _, flag in flag }
        do {
            let configuration = try Configuration(environment: environment)
            CommandLineSecrets.warn(overrides)
            return configuration
        } catch let error as ConfigurationError {
            FileHandle.standardError.write(Data("issuer: \(error.description)\n".utf8))
            throw ExitCode(1)
        }
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
