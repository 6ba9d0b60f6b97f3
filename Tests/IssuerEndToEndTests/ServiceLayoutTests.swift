import Foundation
import IssuerCore
import IssuerStorage
import Postgres
import Testing
import TestSupport

/// docs/operations.md's systemd layout and the admin commands fit together (docs/cli.md,
/// "--env-file"): `/etc/issuer/issuer.env` names every setting, the credentials by their files
/// under `/etc/issuer/credentials/`, so one command line reaches the service's database and
/// ring; a file that lacks one says which, and the defaults of the directory a command happens
/// to run in (its embedded cluster, its `./keys`) are never used in their place.
@Suite("the systemd layout: --env-file reaches the service's database and key ring, end to end")
struct ServiceLayoutTests {
    /// `/etc/issuer` as the install steps leave it, under `root`: `credentials/` with the
    /// database URL and the secret in files of their own, and `issuer.env` naming them and the ring.
    static func layout(in root: URL, database: String, ring: URL) throws -> URL {
        let credentials = root.appendingPathComponent("credentials", isDirectory: true)
        try FileManager.default.createDirectory(at: credentials, withIntermediateDirectories: true)
        try Data("\(database)\n".utf8).write(to: credentials.appendingPathComponent("database-url"))
        try Data("\(Data(repeating: 5, count: 32).base64EncodedString())\n".utf8).write(to: credentials.appendingPathComponent("secret"))
        let file = root.appendingPathComponent("issuer.env")
        try Data("""
            ISSUER_URL=https://id.example.com
            ISSUER_OPS_PORT=9000
            ISSUER_KEYS_DIR=\(ring.path)
            ISSUER_SECRET_FILE=\(credentials.appendingPathComponent("secret").path)
            ISSUER_DATABASE_URL_FILE=\(credentials.appendingPathComponent("database-url").path)
            ISSUER_APPLE_JWKS_URL=http://127.0.0.1:1/auth/keys

            """.utf8).write(to: file)
        return file
    }

    @Test("users show, keys list, migrate --status and doctor with --env-file reach the database and ring it names; the keys commands need no credentials")
    func oneCommandLine() async throws {
        try await MigratedDatabase.with { database, pool in
            let store = SignInStore(pool: pool, clock: SystemClock(), refreshTokenTTL: .seconds(3600), sessionMaxAge: .seconds(7200))
            let identity = ExternalIdentity(provider: "apple", subject: "001.layout", audience: "com.example.app", email: "layout@example.com", emailVerified: true)
            let user = try await store.signIn(SignInRequest(identity: identity, clientID: "clanboards-mobile", scopes: ["openid"])).user
            let etc = try TestDirectories.created("etc-issuer")
            defer { TestDirectories.remove(etc) }
            let ring = try TestKeyRing.make()
            defer { TestDirectories.remove(ring) }
            let file = try Self.layout(in: etc, database: database, ring: ring)
            // Where an operator's shell happens to be: no cluster, no ring.
            let home = try TestDirectories.created("home")
            defer { TestDirectories.remove(home) }
            let active = try #require(try KeyRingDirectory(directory: ring).load().active?.kid)

            let show = try await IssuerInvocation.run(["users", "show", user.subject, "--env-file", file.path], in: home)
            #expect(show.code == 0 && show.stdout.contains("layout@example.com"), "\(show.stderr)")
            let keys = try await IssuerInvocation.run(["keys", "list", "--env-file", file.path], in: home)
            #expect(keys.code == 0 && keys.stdout.contains(active), "\(keys.stderr)")
            let status = try await IssuerInvocation.run(["migrate", "--status", "--env-file", file.path], in: home)
            #expect(status.code == 0 && status.stdout.contains("applied"), "\(status.stderr)")
            let doctor = try await IssuerInvocation.run(["doctor", "--env-file", file.path, "--output", "json"], in: home)
            let checks = try DoctorSetup.statuses(try doctor.json())
            #expect(checks["database"] == "ok" && checks["migrations"] == "ok", "\(doctor.stdout)")
            #expect(checks["key ring"] == "ok" && checks["server secret"] != "warn", "\(doctor.stdout)")
            #expect(doctor.stdout.contains(active))

            // issuer-keys.service: the ring's owner rotates with the same file, whose credentials
            // are root's and out of its reach.
            try FileManager.default.moveItem(at: etc.appendingPathComponent("credentials"), to: etc.appendingPathComponent("out-of-reach"))
            for command in [["keys", "rotate", "--if-older-than", "30d"], ["keys", "prune"], ["keys", "list"]] {
                let run = try await IssuerInvocation.run(command + ["--env-file", file.path], in: home)
                #expect(run.code == 0, "\(command.joined(separator: " ")) reads no credential: \(run.stderr)")
            }
            let unreadable = try await IssuerInvocation.run(["users", "show", user.subject, "--env-file", file.path], in: home)
            #expect(unreadable.code != 0 && unreadable.stderr.contains("ISSUER_DATABASE_URL_FILE"), "\(unreadable.stderr)")
        }
    }

    @Test("--env-file without the database: exit 2 naming the setting the file lacks, never the embedded cluster where the command runs")
    func fileWithoutDatabase() async throws {
        let directory = try TestDirectories.created("decoy-cluster")
        defer { TestDirectories.remove(directory) }
        // A cluster as `issuer serve` leaves it behind, where the operator stands.
        let cluster = EmbeddedPostgres(directory: directory.appendingPathComponent(".data/postgres"), durability: .throwaway)
        try await cluster.startInBackground()
        await cluster.stopInBackground()
        let ring = try TestKeyRing.make()
        defer { TestDirectories.remove(ring) }
        let file = directory.appendingPathComponent("issuer.env")
        try Data("ISSUER_URL=https://id.example.com\nISSUER_KEYS_DIR=\(ring.path)\n".utf8).write(to: file)

        for command in [["users", "show", UUID().uuidString], ["migrate", "--status"], ["sessions", "list", "--user", UUID().uuidString]] {
            let result = try await IssuerInvocation.run(command + ["--env-file", file.path], in: directory)
            #expect(result.code == 2, "\(command): \(result.stderr)")
            #expect(result.stderr.contains("ISSUER_DATABASE_URL is not set in \(file.path)"), "\(result.stderr)")
            #expect(!result.stderr.contains("pass --env-file"), "it was passed: \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1 && result.stdout.isEmpty, "\(result.stderr)")
        }
        let doctor = try await IssuerInvocation.run(["doctor", "--env-file", file.path, "--output", "json"], in: directory)
        #expect(doctor.code == 1)
        let checks = try #require(try doctor.json()["checks"] as? [[String: Any]])
        let databaseCheck = try #require(checks.first { $0["name"] as? String == "database" })
        #expect(databaseCheck["status"] as? String == "fail", "not the embedded cluster: \(doctor.stdout)")
        #expect((databaseCheck["reason"] as? String)?.contains("ISSUER_DATABASE_URL is not set in") == true, "\(doctor.stdout)")
    }

    @Test("--env-file without ISSUER_KEYS_DIR: the keys commands exit 2 naming it and leave ./keys alone; doctor fails its key ring check")
    func fileWithoutRing() async throws {
        try await MigratedDatabase.with { database, _ in
            let directory = try TestDirectories.created("decoy-ring")
            defer { TestDirectories.remove(directory) }
            // A ring in ./keys where the operator stands, which is not the service's.
            let decoy = try TestKeyRing.make()
            defer { TestDirectories.remove(decoy) }
            try FileManager.default.copyItem(at: decoy, to: directory.appendingPathComponent("keys"))
            let manifest = try Data(contentsOf: directory.appendingPathComponent("keys/ring.json"))
            let file = directory.appendingPathComponent("issuer.env")
            try Data("ISSUER_URL=https://id.example.com\nISSUER_DATABASE_URL=\(database)\nISSUER_APPLE_JWKS_URL=http://127.0.0.1:1/auth/keys\n".utf8).write(to: file)

            for command in [["keys", "list"], ["keys", "list", "--output", "json"], ["keys", "init"], ["keys", "rotate", "--force"], ["keys", "prune"]] {
                let result = try await IssuerInvocation.run(command + ["--env-file", file.path], in: directory)
                #expect(result.code == 2, "\(command): \(result.stdout) \(result.stderr)")
                #expect(result.stderr.contains("ISSUER_KEYS_DIR is not set in \(file.path)") && result.stdout.isEmpty, "\(result.stderr)")
            }
            #expect(try Data(contentsOf: directory.appendingPathComponent("keys/ring.json")) == manifest, "./keys untouched")

            let doctor = try await IssuerInvocation.run(["doctor", "--env-file", file.path, "--output", "json"], in: directory)
            let checks = try #require(try doctor.json()["checks"] as? [[String: Any]])
            let ringCheck = try #require(checks.first { $0["name"] as? String == "key ring" })
            #expect(ringCheck["status"] as? String == "fail", "\(doctor.stdout)")
            #expect((ringCheck["reason"] as? String)?.contains("ISSUER_KEYS_DIR is not set in") == true, "\(doctor.stdout)")
            #expect(try DoctorSetup.statuses(try doctor.json())["database"] == "ok", "the file's database is still checked: \(doctor.stdout)")
        }
    }

    @Test("keys list of a directory that does not exist: exit 3, saying so, not an empty ring to init")
    func missingRingDirectory() async throws {
        let directory = try TestDirectories.created("no-ring")
        defer { TestDirectories.remove(directory) }
        let missing = directory.appendingPathComponent("nowhere/keys")
        let result = try await IssuerInvocation.run(["keys", "list", "--keys-dir", missing.path], in: directory)
        #expect(result.code == 3, "\(result.stderr)")
        #expect(result.stderr.contains("\(missing.path): the directory does not exist; check ISSUER_KEYS_DIR"), "\(result.stderr)")
        #expect(!result.stderr.contains("is empty"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: missing.path))
    }

    @Test("as root, keys init, rotate and prune refuse a ring another user owns (the service's), changing nothing", .enabled(if: geteuid() == 0, "needs root to give the ring to another user"))
    func rootOnTheServicesRing() async throws {
        let ring = try TestKeyRing.make()
        defer { TestDirectories.remove(ring) }
        // nobody: a user that is not root, as `issuer` is on a host.
        for path in [ring.path] + (try FileManager.default.contentsOfDirectory(atPath: ring.path)).map({ ring.appendingPathComponent($0).path }) {
            #expect(chown(path, 65_534, 65_534) == 0)
        }
        let manifest = try Data(contentsOf: ring.appendingPathComponent("ring.json"))
        for command in [["keys", "init"], ["keys", "rotate", "--force"], ["keys", "prune"]] {
            let result = try await IssuerInvocation.run(command + ["--keys-dir", ring.path], in: FileManager.default.temporaryDirectory)
            #expect(result.code == 2, "\(command): \(result.stdout) \(result.stderr)")
            #expect(result.stderr.contains("belongs to") && result.stderr.contains("runuser -u"), "\(result.stderr)")
        }
        #expect(try Data(contentsOf: ring.appendingPathComponent("ring.json")) == manifest)
        let listed = try await IssuerInvocation.run(["keys", "list", "--keys-dir", ring.path], in: FileManager.default.temporaryDirectory)
        #expect(listed.code == 0, "reading it as root is fine: \(listed.stderr)")
    }
}
