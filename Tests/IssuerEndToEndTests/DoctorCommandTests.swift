import Foundation
import Synchronization
import IssuerCore
import Testing
import TestSupport

/// `issuer doctor` against a real PostgreSQL and a real HTTP endpoint standing in for Apple's
/// JWKS: one line per check, `--output json`, exit 1 exactly when a check fails.
@Suite("issuer doctor, end to end")
struct DoctorCommandTests {
    static let checkNames = ["database", "migrations", "key ring", "key rotation", "apple keys", "server secret", "issuer url", "audience"]

    @Test("a healthy deployment: every check ok, exit 0; text and JSON say the same")
    func healthy() async throws {
        try await MigratedDatabase.with { database, _ in
            let apple = try DoctorSetup.appleKeys(try FakeAppleKeys().jwksJSON)
            defer { apple.stop() }
            let environment = DoctorSetup.healthy(database: database, keys: try TestKeyRing.make(), jwksPort: apple.port)
            let json = try await IssuerInvocation.run(["doctor", "--output", "json"], in: FileManager.default.temporaryDirectory, environment: environment)
            #expect(json.code == 0, "\(json.stdout) \(json.stderr)")
            let document = try json.json()
            #expect(document["ok"] as? Bool == true)
            let statuses = try DoctorSetup.statuses(document)
            #expect(statuses == Dictionary(uniqueKeysWithValues: Self.checkNames.map { ($0, "ok") }), "\(json.stdout)")
            #expect(apple.requestedPaths.contains("/auth/keys"), "Apple's JWKS was really fetched")
            #expect(!json.stdout.contains(database), "never the database URL")

            let text = try await IssuerInvocation.run(["doctor"], in: FileManager.default.temporaryDirectory, environment: environment)
            #expect(text.code == 0, "\(text.stdout) \(text.stderr)")
            let lines = text.stdout.split(separator: "\n")
            #expect(lines.count == Self.checkNames.count, "one line per check: \(text.stdout)")
            #expect(lines.allSatisfy { $0.hasPrefix("ok ") })
            #expect(text.stdout.contains("next rotation due"))
        }
    }

    @Test("pending migrations and an overdue rotation warn but do not fail: exit 0")
    func warnings() async throws {
        let database = try await TestCluster.freshDatabase()
        let apple = try DoctorSetup.appleKeys(try FakeAppleKeys().jwksJSON)
        defer { apple.stop() }
        let old = try TestKeyRing.make(clock: ManualClock(Date().addingTimeInterval(-40 * 86_400)))
        let result = try await IssuerInvocation.run(
            ["doctor", "--output", "json", "--rotation-interval", "30d"], in: FileManager.default.temporaryDirectory,
            environment: DoctorSetup.healthy(database: database, keys: old, jwksPort: apple.port))
        #expect(result.code == 0, "\(result.stdout) \(result.stderr)")
        let document = try result.json()
        #expect(document["ok"] as? Bool == true)
        let statuses = try DoctorSetup.statuses(document)
        #expect(statuses["migrations"] == "warn")
        #expect(statuses["key rotation"] == "warn")
        #expect(statuses["database"] == "ok")
        #expect(result.stdout.contains("pending"))
        #expect(result.stdout.contains("rotation was due"))
    }

    @Test("an unreachable database, plain http outside loopback, Apple unreachable: each fails, exit 1")
    func failures() async throws {
        let keys = try TestKeyRing.make()
        // A port that was listening and is closed now: connecting is refused.
        let closed = try DoctorSetup.appleKeys(Data())
        closed.stop()
        var environment = DoctorSetup.healthy(database: TestCluster.unreachableDatabase, keys: keys, jwksPort: closed.port)
        environment["ISSUER_URL"] = "http://id.example.com"
        let json = try await IssuerInvocation.run(["doctor", "--output", "json", "--timeout", "2"], in: FileManager.default.temporaryDirectory, environment: environment)
        #expect(json.code == 1, "\(json.stdout) \(json.stderr)")
        let document = try json.json()
        #expect(document["ok"] as? Bool == false)
        let statuses = try DoctorSetup.statuses(document)
        #expect(Set(statuses.keys) == Set(Self.checkNames))
        #expect(statuses["database"] == "fail")
        #expect(statuses["issuer url"] == "fail")
        #expect(statuses["apple keys"] == "fail")
        #expect(statuses["key ring"] == "ok")

        let text = try await IssuerInvocation.run(["doctor", "--timeout", "2"], in: FileManager.default.temporaryDirectory, environment: environment)
        #expect(text.code == 1)
        #expect(text.stdout.split(separator: "\n").filter { $0.hasPrefix("fail ") }.count == 3, "\(text.stdout)")
    }

    @Test("key files without their ring.json fail the key ring check as a broken ring, not an empty one to `keys init` (reference: Signing keys)")
    func brokenKeyRing() async throws {
        let keys = try TestKeyRing.make()
        defer { TestDirectories.remove(keys) }
        try FileManager.default.removeItem(at: keys.appendingPathComponent("ring.json"))
        let closed = try DoctorSetup.appleKeys(Data())
        closed.stop()
        let environment = DoctorSetup.healthy(database: TestCluster.unreachableDatabase, keys: keys, jwksPort: closed.port)
        let result = try await IssuerInvocation.run(["doctor", "--output", "json", "--timeout", "2"], in: FileManager.default.temporaryDirectory, environment: environment)
        #expect(result.code == 1)
        let checks = try #require(try result.json()["checks"] as? [[String: Any]])
        let ring = try #require(checks.first { $0["name"] as? String == "key ring" })
        #expect(ring["status"] as? String == "fail")
        let reason = ring["reason"] as? String ?? ""
        #expect(reason.hasPrefix("broken key ring: \(keys.path) holds 2 key files but no ring.json"), "\(reason)")
        #expect(reason.contains("restore ring.json"))
        #expect(!reason.contains("empty"))
    }

    @Test("Apple answering with something that is not a JWK Set fails the check")
    func appleAnswersGarbage() async throws {
        try await MigratedDatabase.with { database, _ in
            let apple = try DoctorSetup.appleKeys(Data("<html>maintenance</html>".utf8))
            defer { apple.stop() }
            let result = try await IssuerInvocation.run(
                ["doctor", "--output", "json"], in: FileManager.default.temporaryDirectory,
                environment: DoctorSetup.healthy(database: database, keys: try TestKeyRing.make(), jwksPort: apple.port))
            #expect(result.code == 1)
            #expect(try DoctorSetup.statuses(try result.json())["apple keys"] == "fail")
        }
    }

    @Test("each provider of ISSUER_PROVIDERS_FILE gets a keys check: found through its discovery document and fetched; unreachable fails")
    func providerKeys() async throws {
        try await MigratedDatabase.with { database, _ in
            let keys = try FakeAppleKeys().jwksJSON
            let apple = try DoctorSetup.appleKeys(keys)
            defer { apple.stop() }
            // One loopback provider answering its discovery document, then its keys.
            let port = Mutex(0)
            let provider = try ScriptedHTTPServer { request, send in
                let body: String
                if request.contains("openid-configuration") {
                    let base = "http://127.0.0.1:\(port.withLock { $0 })"
                    body = #"{"issuer":"\#(base)","jwks_uri":"\#(base)/keys"}"#
                } else {
                    body = String(decoding: keys, as: UTF8.self)
                }
                _ = send("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)")
            }
            defer { provider.stop() }
            port.withLock { $0 = provider.port }
            let file = TestDirectories.make("providers.json")
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            defer { TestDirectories.remove(file) }
            try #"[{"id":"corp","kind":"oidc","issuer":"http://127.0.0.1:\#(provider.port)","native_audiences":["a"]},{"id":"gone","kind":"oidc","issuer":"http://127.0.0.1:9","native_audiences":["a"]}]"#
                .write(to: file, atomically: true, encoding: .utf8)
            var environment = DoctorSetup.healthy(database: database, keys: try TestKeyRing.make(), jwksPort: apple.port)
            environment["ISSUER_PROVIDERS_FILE"] = file.path
            // 10 s: "corp" must answer within it, which a starved child process may need; "gone" is refused at once.
            let result = try await IssuerInvocation.run(
                ["doctor", "--output", "json", "--timeout", "10"], in: FileManager.default.temporaryDirectory, environment: environment)
            let statuses = try DoctorSetup.statuses(try result.json())
            #expect(statuses["corp keys"] == "ok", "\(result.stdout)")
            #expect(statuses["gone keys"] == "fail", "\(result.stdout)")
            #expect(result.code == 1)
        }
    }
}
