import ArgumentParser
import IssuerCore
import Postgres

/// Why a command stopped, with the exit status that says so: the one place that decides which
/// status an error means (see ``init(_:)``), so that commands throw and never exit themselves.
struct CommandFailure: Error, Sendable, CustomStringConvertible {
    let status: ExitStatus
    /// The one line for stderr, without the `issuer: ` prefix; nil when it was already reported
    /// (by `serve`'s logger).
    let reason: String?
    /// The command's words after `issuer` for the prefix (`keys rotate`), when the reason reads
    /// better with them.
    var command: String?

    init(_ status: ExitStatus, _ reason: String?, command: String? = nil) {
        self.status = status
        self.reason = reason
        self.command = command
    }

    static func usage(_ reason: String) -> CommandFailure { CommandFailure(.usage, reason) }
    static func notFound(_ reason: String) -> CommandFailure { CommandFailure(.notFound, reason) }
    static func failed(_ reason: String) -> CommandFailure { CommandFailure(.failed, reason) }
    static func unavailable(_ reason: String) -> CommandFailure { CommandFailure(.unavailable, reason) }

    /// Classifies any error a command's `run()` let escape: a database that did not answer is
    /// `unavailable` (4), wherever it surfaced; an invalid setting is `failed` (1), as serving
    /// refuses it; anything unforeseen is `failed` too.
    init(_ error: any Error) {
        switch error {
        case let failure as CommandFailure:
            self = failure
        case let code as ExitCode:
            self.init(ExitStatus(rawValue: code.rawValue) ?? (code == .validationFailure ? .usage : .failed), nil)
        case let error as PostgresError where error.isUnavailable:
            self.init(.unavailable, "\(error)")
        case let error as PostgresError where error.isMisconfiguration:
            // docs/reference.md, "Admin CLI": settings to fix, not an outage to wait out.
            self.init(.usage, "ISSUER_DATABASE_URL: \(error)")
        case let error as EmbeddedPostgresError:
            self.init(.unavailable, "the embedded PostgreSQL could not start: \(error)")
        case let error as ConfigurationError:
            self.init(.failed, error.description)
        default:
            self.init(.failed, "\(error)")
        }
    }

    /// The line for stderr, or nil when there is nothing more to say.
    var line: String? {
        reason.map { "issuer\(command.map { " \($0)" } ?? ""): \($0)".escapingControlCharacters }
    }

    var description: String { line ?? "exit status \(status.rawValue)" }
}
