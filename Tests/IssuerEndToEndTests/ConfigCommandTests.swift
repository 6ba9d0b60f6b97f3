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

    /// docs/reference.md, "Configuration": a clients file with a member the registry does not know, or a
    /// providers file claiming Apple's issuer, stops `serve` at start as any invalid setting does.
    @Test("serve and config check refuse an unknown client member and a provider claiming Apple's issuer: exit 1, one line naming the entry and the field",
          arguments: [
            ("ISSUER_CLIENTS_FILE",
             #"[{"client_id": "web", "redirect_uris": ["https://app.example/cb"], "scopes": ["openid"], "apple_audience": ["com.example.web"]}]"#,
             "entry 1 ('web') has an unknown member 'apple_audience'"),
            ("ISSUER_PROVIDERS_FILE",
             #"[{"id": "google", "kind": "google", "native_audiences": ["w"]}, {"id": "corp", "kind": "oidc", "issuer": "https://appleid.apple.com", "native_audiences": ["w"]}]"#,
             "entry 2 ('corp'): the issuer 'https://appleid.apple.com' is Sign in with Apple's"),
          ])
    func registryFileRefused(_ setting: String, _ text: String, _ named: String) async throws {
        try await TestDirectories.withTemporary("registry") { directory in
            let file = directory.appendingPathComponent("registry.json")
            try text.write(to: file, atomically: true, encoding: .utf8)
            let environment = [setting: file.path, "ISSUER_DATABASE_URL": TestCluster.unreachableDatabase]
            for command in [["serve"], ["config", "check"]] {
                let result = try await IssuerInvocation.run(command, in: directory, environment: environment)
                #expect(result.code == 1, "\(command): \(result.stdout) \(result.stderr)")
                #expect(result.stderr.split(separator: "\n").count == 1, "\(command): \(result.stderr)")
                #expect(result.stderr.contains("\(setting) (--"), "\(command): \(result.stderr)")
                #expect(result.stderr.contains(named), "\(command): \(result.stderr)")
            }
        }
    }

    @Test("config reference prints docs/configuration.md")
    func reference() async throws {
        let result = try await IssuerCommand.run(["config", "reference"], in: FileManager.default.temporaryDirectory)
        #expect(result.code == 0)
        let document = try String(contentsOf: Self.repository.appendingPathComponent("docs/configuration.md"), encoding: .utf8)
        #expect(result.output == document)
    }
}
