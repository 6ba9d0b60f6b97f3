import Foundation
import Testing
import TestSupport

/// docs/reference.md, "Configuration" `ISSUER_OPS_PORT`, docs/reference.md, "Operations", through the real binary: two listeners in one process that
/// start and stop together.
@Suite("issuer serve with a management port, end to end")
struct ManagementPortServeTests {
    @Test("--ops-port serves /healthz, /readyz and /metrics there only; SIGTERM stops both listeners and exits 0")
    func serveWithOpsPort() async throws {
        let database = try await TestCluster.freshDatabase()
        let ports = TestPorts.distinct(2)
        let (port, opsPort) = (ports[0], ports[1])
        let server = try IssuerCommand.start(["serve", "--port", "\(port)", "--ops-port", "\(opsPort)"], in: FileManager.default.temporaryDirectory, environment: [
            "ISSUER_DATABASE_URL": database, "ISSUER_KEYS_DIR": try TestKeyRing.make().path,
        ])
        defer { server.kill() }

        let ready = await TestHTTP.waitUntilOK(port: opsPort, path: "/readyz")
        #expect(ready, "never became ready: \(server.output)")
        for path in ["/healthz", "/readyz", "/metrics"] {
            #expect(await TestHTTP.status(port: opsPort, path: path) == 200, "\(path) on the management port")
            #expect(await TestHTTP.status(port: port, path: path) == 404, "\(path) on the main port")
        }
        #expect(await TestHTTP.status(port: port, path: "/oauth2/jwks.json") == 200)
        #expect(await TestHTTP.status(port: opsPort, path: "/oauth2/jwks.json") == 404)

        server.signal(SIGTERM)
        #expect(await server.waitForExit(timeout: .seconds(60)) == 0, "output: \(server.output)")
        #expect(await TestHTTP.status(port: opsPort, path: "/healthz") == nil, "the management listener is closed")
    }
}
