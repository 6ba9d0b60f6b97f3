import Foundation
import Testing
import TestSupport

/// What docs/cli.md promises scripts, run against the built binary and a real PostgreSQL: the
/// exit statuses, `--env-file`, and `--output json` of the commands not covered with their
/// own suites.
@Suite("issuer for scripts: exit statuses, --env-file, --output json, end to end")
struct CLIScriptingTests {
    @Test("a database that does not answer exits 4, with one line",
          arguments: [["users", "show", UUID().uuidString], ["migrate", "--status"], ["apple", "revocations"]])
    func databaseUnavailable(arguments: [String]) async throws {
        let directory = try TestDirectories.created("unavailable")
        defer { TestDirectories.remove(directory) }
        let result = try await IssuerInvocation.run(arguments, in: directory, environment: ["ISSUER_DATABASE_URL": TestCluster.unreachableDatabase])
        #expect(result.code == 4, "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test("--env-file: the unit's file is read; it wins over the environment, a flag wins over it; an unreadable one exits 2")
    func environmentFile() async throws {
        try await MigratedDatabase.with { database, _ in
            let directory = try TestDirectories.created("env-file")
            defer { TestDirectories.remove(directory) }
            let file = directory.appendingPathComponent("issuer.env")
            try Data("""
                # /etc/issuer/issuer.env, as the unit reads it
                ISSUER_DATABASE_URL="\(database)"
                ISSUER_LOG_LEVEL=warning

                """.utf8).write(to: file)
            let listed = try await IssuerInvocation.run(["apple", "revocations", "--env-file", file.path, "--output", "json"], in: directory)
            #expect(listed.code == 0, "the file's database is used: \(listed.stderr)")
            #expect(try listed.json()["revocations"] as? [Any] != nil)

            let stale = try await IssuerInvocation.run(
                ["apple", "revocations", "--env-file", file.path], in: directory, environment: ["ISSUER_DATABASE_URL": TestCluster.unreachableDatabase])
            #expect(stale.code == 0, "the file wins over a stale variable in the shell: \(stale.stderr)")

            let flagged = try await IssuerInvocation.run(
                ["apple", "revocations", "--env-file", file.path, "--database-url", TestCluster.unreachableDatabase], in: directory)
            #expect(flagged.code == 4, "a flag wins over the file: \(flagged.stderr)")

            let secretFile = directory.appendingPathComponent("database-url")
            try Data(database.utf8).write(to: secretFile)
            let fileForm = try await IssuerInvocation.run(
                ["apple", "revocations", "--env-file", file.path], in: directory, environment: ["ISSUER_DATABASE_URL_FILE": secretFile.path])
            #expect(fileForm.code == 0, "the file's ISSUER_DATABASE_URL replaces the shell's _FILE form rather than clashing with it: \(fileForm.stderr)")

            let missing = try await IssuerInvocation.run(["apple", "revocations", "--env-file", directory.appendingPathComponent("nope.env").path], in: directory)
            #expect(missing.code == 2, "\(missing.stderr)")
            #expect(missing.stderr.contains("--env-file"))
            #expect(missing.stderr.split(separator: "\n").count == 1)

            try Data("ISSUER_KEYS_DIR=\(try TestKeyRing.make().path)\n".utf8).write(to: directory.appendingPathComponent("keys.env"))
            let keys = try await IssuerInvocation.run(["keys", "list", "--env-file", directory.appendingPathComponent("keys.env").path], in: directory)
            #expect(keys.code == 0 && keys.stdout.contains("active"), "keys commands read it too: \(keys.stderr)")
            let check = try await IssuerInvocation.run(["config", "check", "--env-file", file.path, "--output", "json"], in: directory)
            #expect(check.code == 1, "an external database with no key ring is refused, as serve refuses it: \(check.stdout)")
            #expect(check.stderr.contains("issuer keys init"))
        }
    }

    @Test("keys list --output json: every key with its state and times")
    func keysListJSON() async throws {
        let ring = try TestKeyRing.make()
        let result = try await IssuerInvocation.run(["keys", "list", "--keys-dir", ring.path, "--output", "json"], in: FileManager.default.temporaryDirectory)
        #expect(result.code == 0, "\(result.stderr)")
        let document = try result.json()
        #expect(document["directory"] as? String == ring.standardizedFileURL.path || document["directory"] as? String == ring.path)
        let keys = try #require(document["keys"] as? [[String: Any]])
        #expect(keys.count == 2)
        #expect(Set(keys.compactMap { $0["state"] as? String }) == ["active", "next"])
        #expect(keys.allSatisfy { Set($0.keys) == ["kid", "state", "created_at", "activated_at", "retired_at", "published_until", "published"] })
        let next = try #require(keys.first { $0["state"] as? String == "next" })
        #expect(next["activated_at"] is NSNull)
        #expect(next["published"] as? Bool == true)

        let empty = try TestDirectories.created("empty-ring")
        defer { TestDirectories.remove(empty) }
        let none = try await IssuerInvocation.run(["keys", "list", "--keys-dir", empty.path, "--output", "json"], in: empty)
        #expect(none.code == 3, "an empty ring is not found: \(none.stderr)")
        #expect((try none.json()["keys"] as? [Any])?.isEmpty == true)
        #expect(none.stderr.contains("is empty: run `issuer keys init`") && none.stderr.split(separator: "\n").count == 1, "\(none.stderr)")
        let text = try await IssuerInvocation.run(["keys", "list", "--keys-dir", empty.path], in: empty)
        #expect(text.code == 3 && text.stdout.isEmpty, "\(text.stdout)")
    }

    @Test("config check --output json: every setting, null when unset, secrets redacted, and the ring")
    func configCheckJSON() async throws {
        let secret = Data(repeating: 9, count: 32).base64EncodedString()
        let result = try await IssuerInvocation.run(
            ["config", "check", "--port", "9001", "--output", "json"], in: FileManager.default.temporaryDirectory,
            environment: [
                "ISSUER_SECRET": secret, "ISSUER_DATABASE_URL": "postgresql://issuer:hunter2@db.example.com/issuer",
                "ISSUER_KEYS_DIR": try TestKeyRing.make().path,
            ])
        #expect(result.code == 0, "\(result.stderr)")
        let document = try result.json()
        let settings = try #require(document["settings"] as? [String: Any])
        #expect(settings["ISSUER_PORT"] as? String == "9001")
        #expect(settings["ISSUER_DATABASE_URL"] as? String == "<redacted>")
        #expect(settings["ISSUER_SECRET"] as? String == "<redacted>")
        #expect(settings["ISSUER_OPS_PORT"] is NSNull)
        #expect(settings["ISSUER_AUDIENCE"] as? String == "clanboards-mobile")
        #expect(!result.stdout.contains("hunter2") && !result.stdout.contains(secret))
        let ring = try #require(document["key_ring"] as? [String: Any])
        #expect(ring["keys"] as? Int == 2)
        #expect(ring["active"] is String && ring["next"] is String)

        let invalid = try await IssuerInvocation.run(["config", "check", "--output", "json"], in: FileManager.default.temporaryDirectory, environment: ["ISSUER_PORT": "eighty"])
        #expect(invalid.code == 1)
        #expect(invalid.stdout.isEmpty)
        #expect(invalid.stderr.contains("ISSUER_PORT"))
    }
}
