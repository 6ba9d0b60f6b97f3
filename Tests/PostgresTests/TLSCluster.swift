import Foundation
@testable import Postgres
import TestSupport

/// A throwaway PostgreSQL cluster that takes connections only over TLS on loopback TCP: the way
/// a managed database is reached in production (docs/reference.md, "The embedded database" is the
/// other way, a Unix socket, which is all the shared test cluster offers).
///
/// Its certificate and key are made by the `openssl` CLI inside the cluster's directory when it
/// starts, so no key is ever committed. `pg_hba.conf` admits TCP clients through `hostssl` lines
/// only, so a session that got in is encrypted whatever the client asked for. Run as root, the
/// server programs run as the `postgres` OS user through `CommandRunner`, as `EmbeddedPostgres`
/// runs them, because `initdb` and `postgres` refuse root.
struct TLSCluster: Sendable {
    /// The cluster's data directory; the certificate, the key and the Unix socket are in it too.
    let directory: URL
    /// The TCP port the server listens on at 127.0.0.1.
    let port: Int

    /// The server's Unix socket (admitted without TLS: `pg_hba.conf`'s `local` line).
    var socketPath: String { directory.appendingPathComponent(".s.PGSQL.\(port)").path }
    /// The self-signed certificate and its private key, in PEM.
    var certificatePath: String { directory.appendingPathComponent("server.crt").path }
    var keyPath: String { directory.appendingPathComponent("server.key").path }
    /// A directory beside the cluster for a test's own files, removed with it.
    var scratch: URL { directory.deletingLastPathComponent() }

    /// The issuer's (non-superuser) role on database `issuer`, over TCP, with TLS required.
    var url: String { url(sslmode: "require") }

    /// The same address with another `sslmode` (libpq's: `disable`, `require`, …).
    func url(sslmode: String) -> String {
        // gssencmode=disable: libpq would try GSSAPI encryption before TLS where it finds Kerberos
        // credentials, and the session would then not be TLS at all.
        "postgresql://issuer@127.0.0.1:\(port)/issuer?sslmode=\(sslmode)&gssencmode=disable&connect_timeout=10"
    }

    /// Runs `body` with a started cluster, stopped and removed whichever way `body` ends.
    static func with<Result>(
        isolation: isolated (any Actor)? = #isolation, _ body: (TLSCluster) async throws -> Result
    ) async throws -> Result {
        try await TestCluster.withPrivateClusterDirectory("tls") { directory in
            let cluster = try await Offload.run { try start(in: directory) }
            return try await body(cluster)
        }
    }

    private static func start(in directory: URL) throws -> TLSCluster {
        let binaries = try PostgresBinaries.locate()
        let osUser = geteuid() == 0 ? "postgres" : nil
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path)
        if let osUser { try run(["/bin/chown", "\(osUser):", directory.path], as: nil) }
        try run([
            binaries.initdb, "--pgdata", directory.path, "--username", "postgres", "--auth", "trust",
            "--encoding", "UTF8", "--locale", "C", "--no-instructions", "--no-sync",
        ], as: osUser)
        // A self-signed P-256 certificate: sslmode=require encrypts without verifying the server
        // (PostgreSQL docs, "SSL Support"), so no authority is needed. Made as the server's user,
        // which must own the key, and the key readable by that user alone, or the server refuses it.
        let key = directory.appendingPathComponent("server.key").path
        let certificate = directory.appendingPathComponent("server.crt").path
        try run([
            "/usr/bin/env", "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
            "-nodes", "-keyout", key, "-out", certificate, "-days", "2", "-subj", "/CN=127.0.0.1",
        ], as: osUser)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: key)
        try """
            local all all trust
            hostssl all all 127.0.0.1/32 trust
            """.write(to: directory.appendingPathComponent("pg_hba.conf"), atomically: false, encoding: .utf8)
        // A random port can be taken by another test's server: a failed start tries another.
        var attempt = 0
        while true {
            attempt += 1
            let port = TestPorts.random()
            let options = [
                "-c listen_addresses=127.0.0.1", "-c port=\(port)",
                "-c unix_socket_directories='\(directory.path)'", "-c unix_socket_permissions=0700",
                "-c ssl=on", "-c ssl_cert_file='\(certificate)'", "-c ssl_key_file='\(key)'",
                "-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off",
            ].joined(separator: " ")
            do {
                try run([
                    binaries.pgCtl, "--pgdata", directory.path, "--log", directory.appendingPathComponent("server.log").path,
                    "--wait", "--timeout", "60", "--options", options, "start",
                ], as: osUser)
            } catch {
                // The server says why in its log, not on pg_ctl's output.
                let log = (try? String(contentsOf: directory.appendingPathComponent("server.log"), encoding: .utf8)) ?? ""
                if attempt < 5 && log.contains("could not bind") { continue }
                throw EmbeddedPostgresError.commandFailed("pg_ctl start", "\(error)\n\(log)")
            }
            try run([
                binaries.psql, "--no-psqlrc", "--quiet", "--set", "ON_ERROR_STOP=1", "--host", directory.path,
                "--port", "\(port)", "--username", "postgres", "--dbname", "postgres",
                "--command", "CREATE ROLE issuer LOGIN", "--command", "CREATE DATABASE issuer OWNER issuer",
            ], as: osUser)
            return TLSCluster(directory: directory, port: port)
        }
    }

    @discardableResult
    private static func run(_ arguments: [String], as user: String?) throws -> String {
        let output = try CommandRunner.run(arguments, as: user)
        guard output.status == 0 else {
            throw EmbeddedPostgresError.commandFailed(URL(fileURLWithPath: arguments[0]).lastPathComponent, output.diagnostics)
        }
        return output.output
    }
}
