import Foundation
@testable import Postgres
import Testing
import TestSupport

@Suite("EmbeddedPostgres")
struct EmbeddedPostgresTests {
    @Test("creates a cluster, reuses it on the next start, and connects as a role that is not a superuser")
    func createReuseStop() async throws {
        try await TestCluster.withPrivateClusterDirectory("embedded") { directory in
            let cluster = EmbeddedPostgres(directory: directory, durability: .throwaway)
            try await cluster.startInBackground(database: "issuer")
            try await ConnectionPool(conninfo: cluster.conninfo(database: "issuer"), size: 1).closing { pool in
                let row = try #require(try await pool.query("SELECT current_user AS role_name, usesuper FROM pg_user WHERE usename = current_user").single)
                #expect(try row.decode(String.self, column: "role_name") == "issuer")
                #expect(try row.decode(Bool.self, column: "usesuper") == false)
                try await pool.query("CREATE TABLE survivor (note text)")
                try await pool.query("INSERT INTO survivor VALUES ('still here')")
            }
            cluster.stop()
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("postmaster.pid").path))
            // No TCP listener was ever configured.
            let conf = try String(contentsOf: directory.appendingPathComponent("server.log"), encoding: .utf8)
            #expect(!conf.contains("listening on IPv4"))

            let again = EmbeddedPostgres(directory: directory, durability: .throwaway)
            try await again.startInBackground(database: "issuer")
            try await ConnectionPool(conninfo: again.conninfo(database: "issuer"), size: 1).closing { reopened throws in
                #expect(try await reopened.query("SELECT note FROM survivor").single?.decode(String.self, column: "note") == "still here")
            }
            again.stop()
        }
    }

    @Test("a second start while the server runs reuses it and does not stop it on exit")
    func reuseRunning() async throws {
        try await TestCluster.withPrivateClusterDirectory("embedded-shared") { directory in
            let owner = EmbeddedPostgres(directory: directory, durability: .throwaway)
            try await owner.startInBackground(database: "issuer")
            let guest = EmbeddedPostgres(directory: directory, durability: .throwaway)
            try await guest.startInBackground(database: "issuer")
            guest.stop()
            try await ConnectionPool(conninfo: owner.conninfo(database: "issuer"), size: 1).closing { pool throws in
                #expect(try await pool.query("SELECT 1 AS one").single?.decode(Int.self, column: "one") == 1)
            }
            owner.stop()
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("postmaster.pid").path))
        }
    }

    @Test("as root in a root-only directory (a clone in /root): the cluster lives where postgres can reach it, linked from .data/postgres (reference: The embedded database)",
          .enabled(if: getuid() == 0, "runs only as root: the cluster runs as the postgres OS user only then"))
    func rootOnlyDirectory() async throws {
        let base = TestDirectories.make("root-home")
        defer { try? FileManager.default.removeItem(at: base.deletingLastPathComponent()) }
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        chmod(base.path, 0o700)
        let checkout = base.appendingPathComponent("issuer", isDirectory: true)
        let requested = checkout.appendingPathComponent(".data/postgres", isDirectory: true)
        let fallbackRoot = base.deletingLastPathComponent().appendingPathComponent("var-lib-issuer", isDirectory: true)

        let cluster = EmbeddedPostgres(directory: requested, durability: .throwaway, fallbackRoot: fallbackRoot)
        #expect(cluster.directory.path.hasPrefix(fallbackRoot.path + "/"))
        try await cluster.startInBackground(database: "issuer")
        try await ConnectionPool(conninfo: cluster.conninfo(database: "issuer"), size: 1).closing { pool in
            try await pool.query("CREATE TABLE survivor (note text)")
            try await pool.query("INSERT INTO survivor VALUES ('kept')")
        }
        cluster.stop()

        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: requested.path) == cluster.directory.path)
        let attributes = try FileManager.default.attributesOfItem(atPath: base.path)
        #expect(attributes[.posixPermissions] as? Int == 0o700, "the root-only directory is not opened up")
        let clusterAttributes = try FileManager.default.attributesOfItem(atPath: cluster.directory.path)
        #expect(clusterAttributes[.ownerAccountName] as? String == "postgres")
        #expect(clusterAttributes[.posixPermissions] as? Int == 0o700)

        // The next start, through the link, finds the same cluster and its data.
        let again = EmbeddedPostgres(directory: requested, durability: .throwaway, fallbackRoot: fallbackRoot)
        #expect(again.directory == cluster.directory)
        try await again.startInBackground(database: "issuer")
        try await ConnectionPool(conninfo: again.conninfo(database: "issuer"), size: 1).closing { reopened throws in
            #expect(try await reopened.query("SELECT note FROM survivor").single?.decode(String.self, column: "note") == "kept")
        }
        again.stop()
        #expect(!FileManager.default.fileExists(atPath: cluster.directory.appendingPathComponent("postmaster.pid").path))
    }

    @Test("relocated clusters never go into /var/lib/issuer, an installed service's own 0700 state directory; a checkout's link into it from before is still followed")
    func relocationRootIsNotTheServiceState() throws {
        #expect(EmbeddedPostgres.defaultFallbackRoot.path != "/var/lib/issuer")
        #expect(!EmbeddedPostgres.defaultFallbackRoot.path.hasPrefix("/var/lib/issuer/"))
        try TestDirectories.withTemporary("former-root") { base in
            let former = base.appendingPathComponent("var-lib-issuer", isDirectory: true)
            let current = base.appendingPathComponent("var-lib-issuer-embedded", isDirectory: true)
            let requested = base.appendingPathComponent("checkout/.data/postgres", isDirectory: true)
            let kept = former.appendingPathComponent(EmbeddedPostgres.pathHash(requested.path)).appendingPathComponent("postgres")
            try FileManager.default.createDirectory(at: kept, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: requested.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: requested.path, withDestinationPath: kept.path)
            let placed = EmbeddedPostgres.placement(for: requested, osUser: "postgres", fallbackRoot: current, formerRoots: [former])
            #expect(placed.path == kept.path, "an existing development database is kept")
            let unknown = EmbeddedPostgres.placement(for: requested, osUser: "postgres", fallbackRoot: current)
            #expect(unknown.path.hasPrefix(current.path + "/"), "a link into a root not ours is not followed")
        }
    }

    @Test("a cluster whose setup fails is stopped, not left running (reference: The embedded database)")
    func failedSetupStops() async throws {
        try await TestCluster.withPrivateClusterDirectory("embedded-failed") { directory in
            let cluster = EmbeddedPostgres(directory: directory, durability: .throwaway)
            // A database name the bootstrap's CREATE DATABASE refuses, after the server started.
            await #expect(throws: EmbeddedPostgresError.self) {
                try await cluster.startInBackground(database: "bad\"name")
            }
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("postmaster.pid").path))
        }
    }

    @Test("as root, a .data/postgres link planted to another directory is refused and that directory keeps its owner",
          .enabled(if: getuid() == 0, "runs only as root: only root hands directories to postgres"))
    func plantedLinkRefused() async throws {
        try await TestDirectories.withTemporary("planted") { base in
            let victim = base.appendingPathComponent("victim", isDirectory: true)
            try FileManager.default.createDirectory(at: victim, withIntermediateDirectories: true)
            try Data("root's".utf8).write(to: victim.appendingPathComponent("file"))
            let requested = base.appendingPathComponent("checkout/.data/postgres", isDirectory: true)
            try FileManager.default.createDirectory(at: requested.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: requested.path, withDestinationPath: victim.path)

            let cluster = EmbeddedPostgres(
                directory: requested, durability: .throwaway, fallbackRoot: base.appendingPathComponent("var-lib-issuer"))
            do {
                try await cluster.startInBackground(database: "issuer")
                Issue.record("a planted link was followed")
                cluster.stop()
            } catch let error as EmbeddedPostgresError {
                #expect("\(error)".contains("symbolic link"), "\(error)")
            }
            for path in [victim.path, victim.appendingPathComponent("file").path] {
                #expect(try FileManager.default.attributesOfItem(atPath: path)[.ownerAccountName] as? String == "root")
            }
        }
    }

    @Test("as root, a data directory holding files but no cluster is not handed to postgres",
          .enabled(if: getuid() == 0, "runs only as root: only root hands directories to postgres"))
    func strayDirectoryKeepsOwner() async throws {
        try await TestDirectories.withTemporary("stray") { requested in
            try Data("root's".utf8).write(to: requested.appendingPathComponent("file"))
            let cluster = EmbeddedPostgres(directory: requested, durability: .throwaway)
            await #expect(throws: EmbeddedPostgresError.self) { try await cluster.startInBackground(database: "issuer") }
            for path in [requested.path, requested.appendingPathComponent("file").path] {
                #expect(try FileManager.default.attributesOfItem(atPath: path)[.ownerAccountName] as? String == "root")
            }
        }
    }

    @Test("as root, a .data planted as a link is refused too, and nothing is made where it points",
          .enabled(if: getuid() == 0, "runs only as root: only root hands directories to postgres"))
    func plantedParentLinkRefused() async throws {
        try await TestDirectories.withTemporary("planted-parent") { base in
            let victim = base.appendingPathComponent("victim", isDirectory: true)
            try FileManager.default.createDirectory(at: victim, withIntermediateDirectories: true)
            let checkout = base.appendingPathComponent("checkout", isDirectory: true)
            try FileManager.default.createDirectory(at: checkout, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: checkout.appendingPathComponent(".data").path, withDestinationPath: victim.path)
            let cluster = EmbeddedPostgres(
                directory: checkout.appendingPathComponent(".data/postgres", isDirectory: true), durability: .throwaway,
                fallbackRoot: base.appendingPathComponent("var-lib-issuer"))
            await #expect(throws: EmbeddedPostgresError.self) { try await cluster.startInBackground(database: "issuer") }
            #expect(!FileManager.default.fileExists(atPath: victim.appendingPathComponent("postgres").path))
        }
    }
}
