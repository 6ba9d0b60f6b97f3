import Foundation
import Testing
import TestSupport

/// docs/reference.md, "Logs": token and secret values never appear in a log line, at any level.
/// `issuer serve` at `trace` prints service-lifecycle's description of every service, which is
/// how the database password once reached the log.
@Suite("No secret at any log level, end to end")
struct LogRedactionTests {
    @Test("serve at ISSUER_LOG_LEVEL=trace, start to SIGTERM: neither the database password nor ISSUER_SECRET appears", arguments: ["text", "json"])
    func traceLogHasNoSecret(format: String) async throws {
        let database = try await TestCluster.freshDatabase()
        let password = "db-pw-\(UUID().uuidString)"
        // Trust authentication ignores the password; libpq still carries it in the connection string.
        let url = database + " password=\(password)"
        let secret = Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        let directory = try TestDirectories.created("redaction")
        defer { TestDirectories.remove(directory) }
        let environment = ["ISSUER_DATABASE_URL": url, "ISSUER_SECRET": secret, "ISSUER_LOG_LEVEL": "trace", "ISSUER_LOG_FORMAT": format]
        let initialized = try await IssuerCommand.run(["keys", "init"], in: directory, environment: environment)
        #expect(initialized.code == 0, "\(initialized.output)")

        let port = TestPorts.random()
        let server = try IssuerCommand.start(["serve", "--port", "\(port)"], in: directory, environment: environment)
        defer { server.kill() }
        #expect(await TestHTTP.waitUntilOK(port: port, path: "/readyz"), "never became ready: \(server.output)")
        server.signal(SIGTERM)
        #expect(await server.waitForExit(timeout: .seconds(60)) == 0)

        let output = server.output
        #expect(output.contains("trace") || output.contains("debug"), "the run logged at the lowest levels")
        #expect(!output.contains(password), "the database password is in the log")
        #expect(!output.contains(secret), "ISSUER_SECRET is in the log")
        #expect(!output.contains(String(secret.dropLast(2))), "ISSUER_SECRET is in the log")
    }
}
