import Foundation
@testable import Postgres
import Testing

/// The server binaries' runner (reference: The embedded database): what a program writes to
/// standard error never reaches the output a caller parses, and a program run as `postgres`
/// starts where it may be (psql run from a clone in `/root` otherwise warns it cannot enter it).
@Suite struct CommandRunnerTests {
    @Test func standardErrorIsKeptApart() throws {
        let result = try CommandRunner.run(["/bin/sh", "-c", "echo out; echo warning >&2; exit 3"])
        #expect(result.status == 3)
        #expect(result.output == "out\n")
        #expect(result.errors == "warning\n")
        #expect(result.diagnostics == "warning\nout")
    }

    @Test(.enabled(if: getuid() == 0, "runs only as root: only root runs programs as postgres"))
    func otherUserStartsInRoot() throws {
        let result = try CommandRunner.run(["/bin/pwd"], as: "postgres")
        #expect(result.status == 0, "\(result.diagnostics)")
        #expect(result.output == "/\n")
    }
}
