import Foundation
import Postgres
import Testing
import TestSupport

@Suite("Reconnect after the server restarts")
struct ReconnectTests {
    @Test("calls fail fast while the server is down and succeed again when it is back, with the same pool")
    func reconnects() async throws {
        // A cluster of its own: stopping the shared one would break every other suite.
        try await TestCluster.withPrivateClusterDirectory("reconnect") { directory in
            let cluster = EmbeddedPostgres(directory: directory, durability: .throwaway)
            try await cluster.startInBackground(database: "issuer")
            // Reconnecting every connection at once is slow on a loaded machine; the deadline is not
            // what this test is about (a stopped server refuses at once).
            try await ConnectionPool(conninfo: cluster.conninfo(database: "issuer"), size: 3, timeout: .seconds(30)).closing { pool in

                try await pool.query("CREATE TABLE notes (body text)")
                try await pool.query("INSERT INTO notes VALUES ($1)", ["kept across the restart"])

                try await Offload.run { try cluster.forceStop() }

                for _ in 0..<5 {
                    let outcome = try await WithinBound.value(seconds: 10) {
                        do {
                            try await pool.query("SELECT 1")
                            return "answered"
                        } catch let error as PostgresError {
                            return error.isUnavailable ? "unavailable" : "other: \(error)"
                        }
                    }
                    #expect(outcome == "unavailable")
                }

                try await cluster.startInBackground(database: "issuer")
                let body = try await pool.query("SELECT body FROM notes").single?.decode(String.self, column: "body")
                #expect(body == "kept across the restart")
                // Every connection of the pool recovers, not only one.
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for _ in 0..<12 { group.addTask { try await pool.query("SELECT pg_sleep(0.05)") } }
                    try await group.waitForAll()
                }
            }
            cluster.stop()
        }
    }
}
