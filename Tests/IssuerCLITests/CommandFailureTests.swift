import ArgumentParser
import Foundation
import IssuerCore
@testable import issuer
import Postgres
import Testing

/// The one place that decides an exit status: each kind of error a command lets escape maps to
/// the status docs/cli.md documents for it.
@Suite struct CommandFailureTests {
    @Test("the documented numbers")
    func numbers() {
        #expect(ExitStatus.allCases.map(\.rawValue) == [0, 1, 2, 3, 4, 5])
        #expect(ExitStatus.allCases == [.done, .failed, .usage, .notFound, .unavailable, .pending])
    }

    @Test("a database that does not answer is 4, wherever it surfaced; a server error is 1")
    func database() {
        #expect(CommandFailure(PostgresError.unavailable("connection refused")).status == .unavailable)
        #expect(CommandFailure(PostgresError.poolClosed).status == .unavailable)
        #expect(CommandFailure(PostgresError.server(sqlState: .cannotConnectNow, message: "starting up")).status == .unavailable)
        #expect(CommandFailure(PostgresError.server(sqlState: .uniqueViolation, message: "dup")).status == .failed)
        #expect(CommandFailure(EmbeddedPostgresError.commandFailed("pg_ctl start", "no")).status == .unavailable)
    }

    @Test("a failure keeps its status; an exit code keeps its number; the parser's EX_USAGE becomes 2; anything else is 1")
    func passThrough() {
        #expect(CommandFailure(CommandFailure.notFound("no user x")).status == .notFound)
        #expect(CommandFailure(ExitCode(5)).status == .pending)
        #expect(CommandFailure(ExitCode.validationFailure).status == .usage)
        #expect(CommandFailure(CocoaError(.fileNoSuchFile)).status == .failed)
    }

    @Test("the stderr line is one line, prefixed with the command, control characters escaped")
    func line() {
        #expect(CommandFailure(.failed, "refused", command: "keys rotate").line == "issuer keys rotate: refused")
        #expect(CommandFailure.usage("bad\nsecond line").line?.contains("\n") == false)
        #expect(CommandFailure(.pending, nil).line == nil)
    }
}
