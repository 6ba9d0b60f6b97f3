import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Postgres
import Testing
import TestSupport

/// docs/reference.md, "Admin CLI": errors a person can act on. Settings the database refuses are
/// configuration (exit 2, one line naming the setting, never libpq's raw text); a port in use is
/// one line naming the address and its setting, before anything else happens.
@Suite("Operator errors name what to fix")
struct OperatorErrorTests {
    @Test("an unknown role and an unknown database: exit 2, one line naming ISSUER_DATABASE_URL, no escaped newlines")
    func refusedSettings() async throws {
        let good = try await TestCluster.freshDatabase()
        let host = try #require(ConnectionString.value(of: "host", in: good))
        let port = ConnectionString.value(of: "port", in: good) ?? "5432"
        let database = try #require(ConnectionString.value(of: "dbname", in: good))
        for url in [
            "host=\(host) port=\(port) dbname=\(database) user=nobody_here",
            "host=\(host) port=\(port) dbname=no_such_database user=issuer",
        ] {
            let result = try await IssuerCommand.run(
                ["migrate", "--status"], in: FileManager.default.temporaryDirectory, environment: ["ISSUER_DATABASE_URL": url])
            #expect(result.code == 2, "\(url): \(result.output)")
            let lines = result.output.split(separator: "\n")
            #expect(lines.count == 1, "\(result.output)")
            #expect(result.output.contains("ISSUER_DATABASE_URL"))
            #expect(!result.output.contains("\\u{"), "libpq's newlines escaped: \(result.output)")
        }
    }

    @Test("a malformed ISSUER_DATABASE_URL, a bad sslmode, a password spilling into the port: refused at start, one line saying what a right one looks like, never the value", arguments: [
        "not a url with secret-password", "host=db dbname=issuer sslmode=bogus password=secret-password",
        "postgresql://issuer:p@ss:secret-password@db/issuer",
    ])
    func malformedURL(_ url: String) async throws {
        let result = try await IssuerCommand.run(
            ["migrate", "--status"], in: FileManager.default.temporaryDirectory, environment: ["ISSUER_DATABASE_URL": url])
        #expect(result.code == 1, "\(result.output)")
        #expect(result.output.split(separator: "\n").count == 1, "\(result.output)")
        #expect(result.output.contains("ISSUER_DATABASE_URL") && result.output.contains("postgresql://USER:PASSWORD@HOST"), "\(result.output)")
        #expect(!result.output.contains("secret-password"))
    }

    @Test("a port in use stops serve with one line naming the address and ISSUER_PORT, before the key ring or the database")
    func portInUse() async throws {
        let directory = try TestDirectories.created("port-in-use")
        defer { TestDirectories.remove(directory) }
        let (holder, port) = try LoopbackSocket.listen(backlog: 1)
        defer { close(holder) }
        let result = try await IssuerCommand.run(
            ["serve", "--port", "\(port)"], in: directory, environment: ["ISSUER_DATABASE_URL": TestCluster.unreachableDatabase])
        #expect(result.code == 1, "\(result.output)")
        #expect(result.output.contains("ISSUER_PORT: 127.0.0.1:\(port) is already in use"), "\(result.output)")
        // Before anything else: not the key ring's complaint, not the database's.
        #expect(!result.output.contains("keys init") && !result.output.contains("database unavailable"), "\(result.output)")
    }
}
