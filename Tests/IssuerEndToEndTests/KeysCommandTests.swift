import Foundation
import Testing
import TestSupport

/// `issuer keys` through the binary, as cron and an operator meet it (docs/cli.md; reference:
/// Signing keys): the exit status and the stream of each outcome. The timing rules themselves are
/// tested in IssuerCoreTests (`KeyRotationTests`).
@Suite("issuer keys: exit statuses and messages")
struct KeysCommandTests {
    @Test("rotate: refused while the next key is new (exit 1, the reason on stderr); with --if-older-than not due is exit 0 on stdout; --force with it is a usage error; --force warns and rotates")
    func rotateOutcomes() async throws {
        let directory = try TestDirectories.created("keys-command")
        defer { TestDirectories.remove(directory) }
        let keys = ["--keys-dir", directory.appendingPathComponent("keys").path]
        #expect(try await IssuerInvocation.run(["keys", "init"] + keys, in: directory).code == 0)

        let refused = try await IssuerInvocation.run(["keys", "rotate"] + keys, in: directory)
        #expect(refused.code == 1)
        #expect(refused.stderr.hasPrefix("issuer keys rotate: not rotating"), "\(refused.stderr)")
        #expect(refused.stderr.split(separator: "\n").count == 1, "one line")

        let notDue = try await IssuerInvocation.run(["keys", "rotate", "--if-older-than", "30d"] + keys, in: directory)
        #expect(notDue.code == 0, "cron stays quiet: \(notDue.stderr)")
        #expect(notDue.stdout.contains("not rotating before"))
        #expect(notDue.stderr.isEmpty)

        let both = try await IssuerInvocation.run(["keys", "rotate", "--if-older-than", "30d", "--force"] + keys, in: directory)
        #expect(both.code == 2)
        #expect(both.stderr.contains("cannot be combined"))

        let before = try await IssuerInvocation.run(["keys", "list", "--output", "json"] + keys, in: directory).stdout
        let forced = try await IssuerInvocation.run(["keys", "rotate", "--force"] + keys, in: directory)
        #expect(forced.code == 0, "\(forced.stderr)")
        #expect(forced.stderr.hasPrefix("warning: forced rotation"), "\(forced.stderr)")
        #expect(forced.stdout.hasPrefix("rotated: "))
        let after = try await IssuerInvocation.run(["keys", "list", "--output", "json"] + keys, in: directory).stdout
        #expect(before != after, "the ring changed")

        let prune = try await IssuerInvocation.run(["keys", "prune"] + keys, in: directory)
        #expect(prune.code == 0)
        #expect(prune.stdout.hasPrefix("nothing to prune"), "the retired key is still published")
    }

    @Test("key files without their ring.json are a broken ring, never \"empty\": keys list, keys init, serve and config check refuse it with exit 1, say so by name and how to restore it; nothing is written (reference: Signing keys)")
    func brokenRing() async throws {
        let directory = try TestDirectories.created("keys-command")
        defer { TestDirectories.remove(directory) }
        let ringDirectory = directory.appendingPathComponent("keys")
        let keys = ["--keys-dir", ringDirectory.path]
        #expect(try await IssuerInvocation.run(["keys", "init"] + keys, in: directory).code == 0)
        try FileManager.default.removeItem(at: ringDirectory.appendingPathComponent("ring.json"))
        let files = { try FileManager.default.contentsOfDirectory(atPath: ringDirectory.path).filter { $0 != ".ring.lock" }.sorted() }
        let before = try files()
        #expect(before.count == 2 && before.allSatisfy { $0.hasSuffix(".pem") }, "\(before)")

        let named = "broken key ring: \(ringDirectory.path) holds 2 key files but no ring.json"
        for command in [["keys", "list"], ["keys", "list", "--output", "json"], ["keys", "init"]] {
            let result = try await IssuerInvocation.run(command + keys, in: directory)
            #expect(result.code == 1, "\(command): \(result.stdout) \(result.stderr)")
            #expect(result.stderr.hasPrefix("issuer \(command[0]) \(command[1]): \(named)"), "\(command): \(result.stderr)")
            #expect(result.stderr.contains("docs/operations.md, \"A ring without its manifest\""))
            #expect(result.stderr.split(separator: "\n").count == 1, "one line")
            #expect(!result.stdout.contains("empty"), "\(command): \(result.stdout)")
        }

        // serve refuses it before it opens a database, external or embedded; config check says what serve would.
        let external = ["ISSUER_KEYS_DIR": ringDirectory.path, "ISSUER_DATABASE_URL": TestCluster.unreachableDatabase]
        let embedded = ["ISSUER_KEYS_DIR": ringDirectory.path]
        for (command, environment) in [(["serve"], external), (["config", "check"], external), (["config", "check"], embedded)] {
            let result = try await IssuerInvocation.run(command, in: directory, environment: environment)
            #expect(result.code == 1, "\(command) \(environment.keys.sorted()): \(result.stdout) \(result.stderr)")
            #expect(result.stderr.contains(named), "\(command) \(environment.keys.sorted()): \(result.stderr)")
            #expect(!result.stderr.contains("empty"))
        }
        #expect(try files() == before, "no second ring was made over the key files")
        #expect(!FileManager.default.fileExists(atPath: ringDirectory.appendingPathComponent("ring.json").path))
    }
}
