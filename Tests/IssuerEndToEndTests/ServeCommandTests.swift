import Foundation
import Postgres
import Testing
import TestSupport

/// Drives the built `issuer` binary as an operator would.
@Suite("issuer serve and migrate, end to end")
struct ServeCommandTests {
    @Test("with no configuration at all: ready on the embedded database, SIGTERM or SIGINT exits 0, no postgres left behind",
          arguments: [SIGTERM, SIGINT])
    func serveEmbedded(stopSignal: Int32) async throws {
        let directory = try TestDirectories.created("serve")
        defer { TestDirectories.remove(directory) }
        let port = TestPorts.random()
        let server = try IssuerCommand.start(["serve", "--port", "\(port)"], in: directory)
        defer { server.kill() }

        let ready = await TestHTTP.waitUntilOK(port: port, path: "/readyz")
        #expect(ready, "never became ready: \(server.output)")
        #expect(await TestHTTP.status(port: port, path: "/healthz") == 200)
        #expect(await TestHTTP.status(port: port, path: "/oauth2/jwks.json") == 200)
        #expect(await TestHTTP.status(port: port, path: "/.well-known/openid-configuration") == 200)
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("keys/ring.json").path),
                "the embedded default creates the key ring")

        let pidFile = directory.appendingPathComponent(".data/postgres/postmaster.pid")
        let postmaster = try #require(Int32(try String(contentsOf: pidFile, encoding: .utf8).split(separator: "\n")[0]))
        #expect(processIsRunning(postmaster))

        server.signal(stopSignal)
        let status = await server.waitForExit(timeout: .seconds(60))
        #expect(status == 0, "output: \(server.output)")
        #expect(!FileManager.default.fileExists(atPath: pidFile.path))
        #expect(!processIsRunning(postmaster), "the embedded postmaster is gone")
    }

    @Test("after kill -9 of serve, the next serve takes the orphaned cluster over and stops it on SIGTERM (reference: Faults and bad input)")
    func serveAfterKill() async throws {
        let directory = try TestDirectories.created("serve-killed")
        defer { TestDirectories.remove(directory) }
        let pidFile = directory.appendingPathComponent(".data/postgres/postmaster.pid")

        func startServer() async throws -> (ChildProcess, Int32) {
            let port = TestPorts.random()
            let server = try IssuerCommand.start(["serve", "--port", "\(port)"], in: directory)
            let ready = await TestHTTP.waitUntilOK(port: port, path: "/readyz")
            #expect(ready, "never became ready: \(server.output)")
            let postmaster = try #require(Int32(try String(contentsOf: pidFile, encoding: .utf8).split(separator: "\n")[0]))
            return (server, postmaster)
        }

        let (crashed, orphan) = try await startServer()
        crashed.kill()
        #expect(processIsRunning(orphan), "kill -9 leaves the postmaster running: the case under test")

        let (server, postmaster) = try await startServer()
        defer { server.kill() }
        #expect(postmaster == orphan, "the orphaned cluster was taken over, not replaced")
        server.signal(SIGTERM)
        let status = await server.waitForExit(timeout: .seconds(60))
        #expect(status == 0, "output: \(server.output)")
        #expect(!processIsRunning(postmaster), "the taken-over postmaster is stopped on exit")
        #expect(!FileManager.default.fileExists(atPath: pidFile.path))
        if processIsRunning(postmaster) { kill(postmaster, SIGKILL) }
    }

    @Test("admin commands never create a database: with none configured and no cluster here, exit 2 and nothing started", arguments: [
        ["migrate"], ["migrate", "--status"], ["users", "show", UUID().uuidString], ["users", "delete", UUID().uuidString, "--yes"],
        ["sessions", "list", "--user", UUID().uuidString], ["sessions", "revoke", "--user", UUID().uuidString], ["apple", "revocations"],
    ])
    func adminCommandsRefuseWithoutDatabase(arguments: [String]) async throws {
        let directory = try TestDirectories.created("no-database")
        defer { TestDirectories.remove(directory) }
        let result = try await IssuerCommand.run(arguments, in: directory)
        #expect(result.code == 2, "\(result.output)")
        #expect(result.output.split(separator: "\n").count == 1, "\(result.output)")
        #expect(result.output.contains("no ISSUER_DATABASE_URL"))
        #expect(result.output.contains("--env-file"), "the line says what to do")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent(".data").path), "created nothing")
    }

    @Test("an embedded cluster that exists is used (and reused with its data): migrate --status exits 5 while migrations are pending, 0 once applied")
    func embeddedClusterReused() async throws {
        let directory = try TestDirectories.created("serve-twice")
        defer { TestDirectories.remove(directory) }
        // The cluster as `issuer serve` leaves it behind: created, then stopped.
        let cluster = EmbeddedPostgres(directory: directory.appendingPathComponent(".data/postgres"), durability: .throwaway)
        try await cluster.startInBackground()
        await cluster.stopInBackground()
        for round in 0..<2 {
            let status = try await IssuerCommand.run(["migrate", "--status"], in: directory)
            #expect(status.code == (round == 0 ? 5 : 0), "\(status.output)")
            #expect(status.output.contains("0001_server_secret"))
            #expect(status.output.contains(round == 0 ? "pending" : "applied"))
            let json = try await IssuerInvocation.run(["migrate", "--status", "--output", "json"], in: directory)
            #expect(json.code == (round == 0 ? 5 : 0), "\(json.stderr)")
            let document = try json.json()
            let migrations = try #require(document["migrations"] as? [[String: Any]])
            #expect(migrations.first?["name"] as? String == "0001_server_secret")
            #expect(migrations.first?["version"] as? Int == 1)
            #expect(migrations.allSatisfy { Set($0.keys) == ["version", "name", "state", "applied_at"] })
            #expect(migrations.allSatisfy { $0["state"] as? String == (round == 0 ? "pending" : "applied") })
            #expect(document["pending"] as? Int == (round == 0 ? migrations.count : 0))
            let migrate = try await IssuerCommand.run(["migrate"], in: directory)
            #expect(migrate.code == 0)
            #expect(migrate.output.contains(round == 0 ? "Applied " : "No pending migrations"))
        }
    }

    @Test("invalid configuration: exit 1 and one line on stderr naming the setting", arguments: [
        (["serve", "--port", "eighty"], [:], "ISSUER_PORT"),
        (["serve"], ["ISSUER_PORT": "0"], "ISSUER_PORT"),
        (["serve"], ["ISSUER_URL": "not a url"], "ISSUER_URL"),
        (["serve", "--log-level", "loud"], [:], "ISSUER_LOG_LEVEL"),
        (["serve"], ["ISSUER_DATABASE_POOL_SIZE": "-3"], "ISSUER_DATABASE_POOL_SIZE"),
        (["serve", "--clients-file", "/nonexistent.json"], [:], "ISSUER_CLIENTS_FILE"),
        (["migrate"], ["ISSUER_DATABASE_URL": "postgresql://[x"], "ISSUER_DATABASE_URL"),
    ] as [([String], [String: String], String)])
    func invalidConfiguration(arguments: [String], environment: [String: String], setting: String) async throws {
        let directory = try TestDirectories.created("bad-config")
        defer { TestDirectories.remove(directory) }
        let result = try await IssuerCommand.run(arguments, in: directory, environment: environment)
        #expect(result.code == 1)
        let lines = result.output.split(separator: "\n")
        #expect(lines.count == 1, "\(result.output)")
        #expect(result.output.contains(setting))
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent(".data").path), "nothing started")
    }

    @Test("a secret given as a flag is warned about (other users can read process arguments); the file form is not")
    func secretFlagWarns() async throws {
        let database = try await TestCluster.freshDatabase()
        let directory = try TestDirectories.created("secret-flag")
        defer { TestDirectories.remove(directory) }
        let flagged = try await IssuerCommand.run(["migrate", "--status", "--database-url", database], in: directory)
        #expect(flagged.code == 5, "a fresh database has every migration pending: \(flagged.output)")
        #expect(flagged.output.contains("warning: --database-url puts a secret on the command line"))
        #expect(flagged.output.contains("ISSUER_DATABASE_URL_FILE"))
        #expect(!flagged.output.contains(database), "the warning never repeats the value")

        let file = directory.appendingPathComponent("database-url")
        try Data((database + "\n").utf8).write(to: file)
        let fromFile = try await IssuerCommand.run(["migrate", "--status"], in: directory, environment: ["ISSUER_DATABASE_URL_FILE": file.path])
        #expect(fromFile.code == 5, "\(fromFile.output)")
        #expect(!fromFile.output.contains("warning"))
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent(".data").path), "the file's database was used")

        let both = try await IssuerCommand.run(["migrate", "--status"], in: directory, environment: [
            "ISSUER_DATABASE_URL_FILE": file.path, "ISSUER_DATABASE_URL": database,
        ])
        #expect(both.code == 1)
        #expect(both.output.split(separator: "\n").count == 1, "\(both.output)")
        #expect(both.output.contains("ISSUER_DATABASE_URL"))
    }

    @Test("with an external database, an empty key ring stops serve with a message to run keys init")
    func emptyRingRefused() async throws {
        let database = try await TestCluster.freshDatabase()
        let directory = try TestDirectories.created("empty-ring")
        defer { TestDirectories.remove(directory) }
        let result = try await IssuerCommand.run(["serve", "--port", "\(TestPorts.random())"], in: directory, environment: ["ISSUER_DATABASE_URL": database])
        #expect(result.code == 1)
        #expect(result.output.contains("issuer keys init"))
    }

    @Test("an external database that does not answer stops serve with exit 4 (a dependency unavailable), the reason in its log")
    func unreachableDatabase() async throws {
        let directory = try TestDirectories.created("unreachable-database")
        defer { TestDirectories.remove(directory) }
        let environment = ["ISSUER_DATABASE_URL": TestCluster.unreachableDatabase]
        #expect(try await IssuerCommand.run(["keys", "init"], in: directory, environment: environment).code == 0)
        let result = try await IssuerCommand.run(["serve", "--port", "\(TestPorts.random())"], in: directory, environment: environment)
        #expect(result.code == 4, "\(result.output)")
        #expect(result.output.contains("database unavailable"))
    }

    @Test("serve warns at start when ISSUER_SECRET is unset with an external database (the secret would sit beside what it seals)")
    func unsetSecretWarned() async throws {
        let database = try await TestCluster.freshDatabase()
        let directory = try TestDirectories.created("secret-warning")
        defer { TestDirectories.remove(directory) }
        let unset = try await IssuerCommand.run(["serve", "--port", "\(TestPorts.random())"], in: directory, environment: ["ISSUER_DATABASE_URL": database])
        #expect(unset.output.contains("ISSUER_SECRET is unset with an external database"), "\(unset.output)")
        let secret = Data(repeating: 9, count: 32).base64EncodedString()
        let set = try await IssuerCommand.run(
            ["serve", "--port", "\(TestPorts.random())"], in: directory, environment: ["ISSUER_DATABASE_URL": database, "ISSUER_SECRET": secret])
        #expect(!set.output.contains("ISSUER_SECRET is unset"), "\(set.output)")
        #expect(set.output.contains("issuer keys init"), "both stop at the empty key ring, after the warning")
    }

    @Test("an unknown flag gets the argument parser's usage error")
    func unknownFlag() async throws {
        let result = try await IssuerCommand.run(["serve", "--no-such-flag"], in: FileManager.default.temporaryDirectory)
        #expect(result.code != 0 && result.code != 1)
        #expect(result.output.contains("Unknown option"))
    }

    @Test("every setting is a serve flag")
    func flagsListed() async throws {
        let result = try await IssuerCommand.run(["serve", "--help"], in: FileManager.default.temporaryDirectory)
        #expect(result.code == 0)
        for variable in Self.settings {
            let flag = "--" + variable.dropFirst("ISSUER_".count).lowercased().replacingOccurrences(of: "_", with: "-")
            #expect(result.output.contains(flag), "\(flag) missing from serve --help")
        }
    }

    @Test("migrate against an external database, and refuse an edited migration")
    func migrateExternal() async throws {
        let database = try await TestCluster.freshDatabase()
        let directory = try TestDirectories.created("migrations")
        defer { TestDirectories.remove(directory) }
        let file = directory.appendingPathComponent("0001_things.sql")
        try "CREATE TABLE things (id int);".write(to: file, atomically: true, encoding: .utf8)
        let environment = ["ISSUER_DATABASE_URL": database, "ISSUER_MIGRATIONS_DIR": directory.path]
        let first = try await IssuerCommand.run(["migrate"], in: directory, environment: environment)
        #expect(first.code == 0, "\(first.output)")
        try "CREATE TABLE things (id bigint);".write(to: file, atomically: true, encoding: .utf8)
        let edited = try await IssuerCommand.run(["migrate"], in: directory, environment: environment)
        #expect(edited.code == 1)
        #expect(edited.output.contains("changed after it was applied"))
    }

    static let settings = [
        "ISSUER_URL", "ISSUER_HOST", "ISSUER_PORT", "ISSUER_DATABASE_URL", "ISSUER_DATABASE_POOL_SIZE",
        "ISSUER_KEYS_DIR", "ISSUER_KEYS_RELOAD_SECONDS", "ISSUER_AUDIENCE", "ISSUER_CLIENTS_FILE",
        "ISSUER_APPLE_CLIENT_IDS", "ISSUER_APPLE_SERVICES_ID", "ISSUER_APPLE_JWKS_URL", "ISSUER_APPLE_AUTHORIZE_URL",
        "ISSUER_APPLE_REQUIRE_NONCE", "ISSUER_APPLE_LINK_BY_VERIFIED_EMAIL", "ISSUER_ACCESS_TOKEN_TTL", "ISSUER_ID_TOKEN_TTL",
        "ISSUER_REFRESH_TOKEN_TTL",
        "ISSUER_SESSION_MAX_AGE", "ISSUER_REFRESH_REUSE_GRACE", "ISSUER_SECRET", "ISSUER_MIGRATIONS_DIR",
        "ISSUER_TRUSTED_PROXIES", "ISSUER_RATE_LIMIT", "ISSUER_APPLE_TEAM_ID", "ISSUER_APPLE_KEY_ID",
        "ISSUER_APPLE_PRIVATE_KEY_FILE", "ISSUER_APPLE_TOKEN_URL", "ISSUER_APPLE_REVOKE_URL", "ISSUER_LOG_LEVEL",
        "ISSUER_LOG_FORMAT",
    ]
}
