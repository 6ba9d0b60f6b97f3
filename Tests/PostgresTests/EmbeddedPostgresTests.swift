import Foundation
import Postgres
import Testing
import TestSupport

@Suite("EmbeddedPostgres")
struct EmbeddedPostgresTests {
    @Test("creates a cluster, reuses it on the next start, and connects as a role that is not a superuser")
    func createReuseStop() async throws {
        let directory = TestDirectories.make("embedded")
        let cluster = EmbeddedPostgres(directory: directory, durability: .throwaway)
        try await cluster.startInBackground(database: "issuer")
        let pool = ConnectionPool(conninfo: cluster.conninfo(database: "issuer"), size: 1)
        let row = try #require(try await pool.query("SELECT current_user, usesuper FROM pg_user WHERE usename = current_user").single)
        #expect(try row.decode(String.self, at: 0) == "issuer")
        #expect(try row.decode(Bool.self, at: 1) == false)
        try await pool.query("CREATE TABLE survivor (note text)")
        try await pool.query("INSERT INTO survivor VALUES ('still here')")
        await pool.close()
        cluster.stop()
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("postmaster.pid").path))
        // No TCP listener was ever configured.
        let conf = try String(contentsOf: directory.appendingPathComponent("server.log"), encoding: .utf8)
        #expect(!conf.contains("listening on IPv4"))

        let again = EmbeddedPostgres(directory: directory, durability: .throwaway)
        try await again.startInBackground(database: "issuer")
        let reopened = ConnectionPool(conninfo: again.conninfo(database: "issuer"), size: 1)
        #expect(try await reopened.query("SELECT note FROM survivor").single?.decode(String.self, at: 0) == "still here")
        await reopened.close()
        again.stop()
        try? FileManager.default.removeItem(at: directory.deletingLastPathComponent())
    }

    @Test("a second start while the server runs reuses it and does not stop it on exit")
    func reuseRunning() async throws {
        let directory = TestDirectories.make("embedded-shared")
        let owner = EmbeddedPostgres(directory: directory, durability: .throwaway)
        try await owner.startInBackground(database: "issuer")
        let guest = EmbeddedPostgres(directory: directory, durability: .throwaway)
        try await guest.startInBackground(database: "issuer")
        guest.stop()
        let pool = ConnectionPool(conninfo: owner.conninfo(database: "issuer"), size: 1)
        #expect(try await pool.query("SELECT 1").single?.decode(Int.self, at: 0) == 1)
        await pool.close()
        owner.stop()
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("postmaster.pid").path))
        try? FileManager.default.removeItem(at: directory.deletingLastPathComponent())
    }
}
