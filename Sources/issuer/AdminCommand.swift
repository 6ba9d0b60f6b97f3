import ArgumentParser
import Foundation
import IssuerCore
import Logging
import Postgres

/// What the admin commands share: configuration, a one-connection database, output. Failures
/// are thrown as `CommandFailure`, whose status `Issuer.main()` exits with.
enum AdminCommand {
    /// Runs `body` against the configured database (an existing embedded cluster at most, and
    /// none with `--env-file`; see `DatabaseTarget.Embedded`), closing it whichever way `body` ends.
    static func withDatabase(_ options: DatabaseOptions, _ body: (ConnectionPool, Configuration) async throws -> Void) async throws {
        let configuration = try ConfigurationLoader.load(overrides: options.overrides, environmentFile: options.environmentFile.path)
        var logger = Logger(label: "issuer")
        logger.logLevel = .warning
        let database = try await DatabaseTarget.open(configuration, logger: logger, embedded: .admin(environmentFile: options.environmentFile.path))
        do {
            try await body(database.pool, configuration)
        } catch {
            await database.shutdown()
            throw error
        }
        await database.shutdown()
    }

    /// A `sub` or `sid` as the tokens carry them; anything else is a usage error.
    static func uuid(_ text: String, _ what: String) throws -> UUID {
        guard let id = UUID(uuidString: text) else { throw CommandFailure.usage("\(what) '\(text)' is not a UUID") }
        return id
    }

    static func format(_ date: Date?) -> String {
        guard let date else { return "-" }
        return date.formatted(.iso8601.year().month().day().dateSeparator(.dash).time(includingFractionalSeconds: false).timeSeparator(.colon))
    }

    /// Prints one line of output. Values in it may be client-supplied (a name, a user agent), so
    /// control characters are escaped: no input may drive an operator's terminal (docs/reference.md, "Faults and bad input").
    static func show(_ line: String) {
        print(line.escapingControlCharacters)
    }

    /// Left-aligned columns, two spaces apart; cells escaped as `show` does.
    static func table(_ header: [String], _ rows: [[String]]) -> String {
        let rows = rows.map { $0.map(\.escapingControlCharacters) }
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        return ([header] + rows).map { row in
            row.enumerated().map { $1.padding(toLength: widths[$0], withPad: " ", startingAt: 0) }
                .joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }.joined(separator: "\n")
    }
}
