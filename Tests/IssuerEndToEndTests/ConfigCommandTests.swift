import Foundation
import Testing
import TestSupport

/// docs/reference.md, "Admin CLI": `issuer --version`, `issuer config check` and `issuer config reference`, run as an
/// operator runs them.
@Suite("issuer --version and issuer config, end to end")
struct ConfigCommandTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test("--version prints the release and the commit the binary was built from")
    func version() async throws {
        let result = try await IssuerCommand.run(["--version"], in: FileManager.default.temporaryDirectory)
        #expect(result.code == 0)
        let line = result.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let match = line.wholeMatch(of: /\d+\.\d+\.\d+ \(commit ([0-9a-f]{12}|unknown)\)/)
        #expect(match != nil, "\(line)")
        // Built from a clone: the commit is one of this repository's.
        if let commit = match?.1, commit != "unknown" {
            let git = try ChildProcess(
                executable: "/usr/bin/env", arguments: ["git", "-C", Self.repository.path, "cat-file", "-e", "\(commit)^{commit}"],
                environment: ProcessInfo.processInfo.environment, directory: Self.repository)
            #expect(await git.waitForExit(timeout: .seconds(30)) == 0, "\(commit) is not a commit here: \(git.output)")
        }
    }

    @Test("config check prints the effective settings with secrets redacted, and exits 0")
    func checkValid() async throws {
        let secret = Data(repeating: 9, count: 32).base64EncodedString()
        let result = try await IssuerCommand.run(
            ["config", "check", "--port", "9001"], in: FileManager.default.temporaryDirectory,
            environment: [
                "ISSUER_SECRET": secret, "ISSUER_DATABASE_URL": "postgresql://issuer:hunter2@db.example.com/issuer",
                "ISSUER_KEYS_DIR": try TestKeyRing.make().path, "ISSUER_OPS_PORT": "9090", "ISSUER_RATE_LIMIT": "off",
            ])
        #expect(result.code == 0, "\(result.output)")
        #expect(result.output.contains("ISSUER_PORT") && result.output.contains("9001"))
        #expect(result.output.contains("ISSUER_OPS_PORT") && result.output.contains("9090"))
        #expect(result.output.contains("<redacted>"))
        #expect(!result.output.contains("hunter2"))
        #expect(!result.output.contains(secret))
        #expect(result.output.contains("key ring: 2 keys, active"))
    }

    @Test("config check refuses what serve refuses: exit 1 and one line naming the problem",
          arguments: [
            (["ISSUER_PORT": "eighty"], "ISSUER_PORT"),
            (["ISSUER_OPS_PORT": "8080"], "ISSUER_OPS_PORT"),
            (["ISSUER_LOG_LEVEL": "loud"], "ISSUER_LOG_LEVEL"),
            (["ISSUER_DATABASE_URL": "postgresql://db.example.com/issuer", "ISSUER_KEYS_DIR": "/nonexistent-ring"], "key ring"),
          ])
    func checkInvalid(_ environment: [String: String], _ named: String) async throws {
        let result = try await IssuerCommand.run(["config", "check"], in: FileManager.default.temporaryDirectory, environment: environment)
        #expect(result.code == 1)
        let lines = result.output.split(separator: "\n")
        #expect(lines.count == 1, "\(result.output)")
        #expect(result.output.contains(named))
    }

    @Test("config reference prints docs/configuration.md")
    func reference() async throws {
        let result = try await IssuerCommand.run(["config", "reference"], in: FileManager.default.temporaryDirectory)
        #expect(result.code == 0)
        let document = try String(contentsOf: Self.repository.appendingPathComponent("docs/configuration.md"), encoding: .utf8)
        #expect(result.output == document)
    }
}
