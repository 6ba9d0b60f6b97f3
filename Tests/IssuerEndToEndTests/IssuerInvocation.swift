import Foundation
import Testing
import TestSupport

/// One run of the built `issuer` with stdout and stderr kept apart, as a script sees them:
/// `--output json` promises one JSON document on stdout, whatever goes to stderr.
struct IssuerInvocation {
    let code: Int32
    let stdout: String
    let stderr: String

    /// Runs `arguments` in `directory` with a clean environment (no ISSUER_*) plus `environment`.
    static func run(_ arguments: [String], in directory: URL, environment: [String: String] = [:]) async throws -> IssuerInvocation {
        let errors = FileManager.default.temporaryDirectory.appendingPathComponent("issuer-stderr-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: errors) }
        // ChildProcess writes stdout and stderr to one file; the shell sends stderr elsewhere.
        let process = try ChildProcess(
            executable: "/bin/sh", arguments: ["-c", "exec \"$0\" \"$@\" 2>\"$TEST_STDERR_FILE\"", BuiltProducts.issuer] + arguments,
            environment: IssuerCommand.environment(environment)
                .merging(["TEST_STDERR_FILE": errors.path]) { _, new in new },
            directory: directory)
        guard let code = await process.waitForExit(timeout: .seconds(120)) else {
            process.kill()
            return IssuerInvocation(code: -1, stdout: process.output, stderr: "timed out")
        }
        return IssuerInvocation(code: code, stdout: process.output, stderr: (try? String(contentsOf: errors, encoding: .utf8)) ?? "")
    }

    /// stdout as the one JSON object it must be: parsing fails the test otherwise.
    func json(sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        let lines = stdout.split(separator: "\n")
        #expect(lines.count == 1, "one JSON document on one line: \(stdout)", sourceLocation: sourceLocation)
        let object = try JSONSerialization.jsonObject(with: Data(stdout.utf8))
        return try #require(object as? [String: Any], "not a JSON object: \(stdout) \(stderr)", sourceLocation: sourceLocation)
    }
}
