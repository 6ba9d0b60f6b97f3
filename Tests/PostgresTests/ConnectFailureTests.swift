import Foundation
@testable import Postgres
import Testing
import TestSupport

/// docs/reference.md, "Admin CLI": settings the server or libpq refuses are a configuration
/// problem; only a database that does not answer is an outage.
@Suite("Connect failures: settings refused against a database away")
struct ConnectFailureTests {
    /// The shared cluster's socket and a fresh database on it, as key=value settings.
    static func server() async throws -> (settings: String, database: String) {
        let conninfo = try await TestCluster.freshDatabase()
        let database = try #require(ConnectionString.value(of: "dbname", in: conninfo))
        let host = try #require(ConnectionString.value(of: "host", in: conninfo))
        let port = ConnectionString.value(of: "port", in: conninfo) ?? "5432"
        return ("host=\(host) port=\(port)", database)
    }

    static func connect(_ conninfo: String) async -> PostgresError? {
        do {
            try await ConnectionPool(conninfo: conninfo, size: 1, timeout: .seconds(10)).closing { pool in
                _ = try await pool.query("SELECT 1 AS one")
            }
            return nil
        } catch {
            return error as? PostgresError
        }
    }

    @Test("an unknown role and an unknown database are misconfigured, in one line; a refused port and a missing socket are unavailable")
    func classified() async throws {
        let (server, database) = try await Self.server()
        let refusals = [
            "\(server) dbname=\(database) user=nobody_here",
            "\(server) dbname=no_such_database user=issuer",
        ]
        for conninfo in refusals {
            let error = await Self.connect(conninfo)
            #expect(error?.isMisconfiguration == true, "\(conninfo): \(String(describing: error))")
            #expect(error?.isUnavailable == false)
            let text = "\(error.map { "\($0)" } ?? "")"
            #expect(!text.contains("\n") && !text.contains("\t") && !text.contains("LOCATION"), "\(text)")
            #expect(!text.contains("28000") && !text.contains("3D000"), "the code is for the decision, not the reader: \(text)")
        }
        // A database that is down: nothing listens on the port, or its socket is not there (the
        // first attempt fails inside libpq's start call, before any poll).
        for conninfo in [TestCluster.unreachableDatabase, "host=/nonexistent-socket-directory dbname=issuer user=issuer"] {
            let away = await Self.connect(conninfo)
            #expect(away?.isUnavailable == true, "\(conninfo): \(String(describing: away))")
        }
    }

    @Test("values libpq checks only when connecting are refused at start, naming the option, never its value")
    func valuesCheckedAtStart() {
        #expect(ConnectionString.problem(in: "host=db dbname=issuer sslmode=bogus")?.contains("sslmode must be one of") == true)
        #expect(ConnectionString.problem(in: "postgresql://db/issuer?sslmode=verify-full") == nil)
        // An unescaped ':' and '@' in a URI's password puts part of it in the port.
        let leaked = ConnectionString.problem(in: "postgresql://issuer:p@ss:w0rd@db/issuer")
        #expect(leaked?.contains("port must be a number") == true, "\(String(describing: leaked))")
        #expect(leaked?.contains("w0rd") == false)
        #expect(ConnectionString.problem(in: "host=a,b port=5432,5433 dbname=issuer") == nil)
    }

    @Test("libpq's own words lose their quoted parts (the settings, maybe a password); the server's stay")
    func redacted() {
        let libpq = ConnectFailure.error("invalid integer value \"w0rd@db\" for connection option \"port\"\n")
        #expect(!"\(libpq)".contains("w0rd"), "\(libpq)")
        let server = ConnectFailure.error("connection to server at \"db\" (10.0.0.1), port 5432 failed: FATAL:  28000: role \"x\" does not exist\n")
        #expect("\(server)".contains("role \"x\" does not exist"), "\(server)")
        #expect(!"\(server)".contains("\"db\""), "\(server)")
    }

    @Test("the SQLSTATE is read from libpq's verbose message; the message becomes one line", arguments: [
        ("connection to server on socket \"/tmp/.s.PGSQL.5432\" failed: FATAL:  28000: role \"x\" does not exist\nLOCATION:  InitializeSessionUserId, miscinit.c:694\n",
         "28000", "connection to server on socket \"…\" failed: FATAL: role \"x\" does not exist"),
        ("connection to server at \"db\" (10.0.0.1), port 5432 failed: Connection refused\n\tIs the server running on that host?\n",
         nil, "connection to server at \"…\" (10.0.0.1), port 5432 failed: Connection refused Is the server running on that host?"),
        ("FATAL:  57P03: the database system is starting up\n", "57P03", "FATAL: the database system is starting up"),
    ] as [(String, String?, String)])
    func parsed(_ message: String, _ sqlState: String?, _ line: String) {
        let parsed = ConnectFailure.parse(message)
        #expect(parsed.sqlState == sqlState)
        #expect(parsed.message == line)
        #expect(ConnectFailure.error(message).isMisconfiguration == (sqlState == "28000"))
    }
}
