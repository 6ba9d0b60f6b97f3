import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IssuerCore
import IssuerStorage
import IssuerServer
import Testing
import TestSupport

/// docs/reference.md, "Configuration" `ISSUER_OPS_PORT` and docs/reference.md, "Operations": with a management port, the operations endpoints are
/// served only on the management listener and the main listener answers 404 for them.
@Suite("The management port")
struct ManagementPortTests {
    static let operationsPaths = ["/healthz", "/readyz", "/metrics"]

    @Test("with ISSUER_OPS_PORT, /healthz, /readyz and /metrics are 404 on the main listener and 200 on the management one")
    func separateListener() async throws {
        let pool = try await TestCluster.freshPool(size: 2)
        let opsPort = TestPorts.random()
        try await OperationsTestApp.test(pool: pool, environment: ["ISSUER_OPS_PORT": "\(opsPort)", "ISSUER_OPS_HOST": "127.0.0.1"]) { client in
            for path in Self.operationsPaths {
                try await client.execute(uri: path, method: .get) { response in
                    #expect(response.status == .notFound, "\(path) on the main listener")
                }
            }
            // The rest of the issuer is still on the main listener.
            try await client.execute(uri: "/oauth2/jwks.json", method: .get) { response in
                #expect(response.status == .ok)
            }
            // The management listener starts beside the test; give it a moment to bind.
            var first: (status: Int, body: String)?
            let end = ContinuousClock.now + .seconds(60)
            while ContinuousClock.now < end {
                first = await TestHTTP.get(port: opsPort, path: "/healthz")
                if first != nil { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(first?.status == 200)
            for path in Self.operationsPaths {
                let answer = await TestHTTP.get(port: opsPort, path: path)
                #expect(answer?.status == 200, "\(path) on the management listener")
            }
            #expect(await TestHTTP.get(port: opsPort, path: "/metrics")?.body.contains("issuer_http_requests_total") == true)
            // Only the operations endpoints are there.
            #expect(await TestHTTP.get(port: opsPort, path: "/oauth2/jwks.json")?.status == 404)
        }
    }

    @Test("without ISSUER_OPS_PORT, the operations endpoints are on the main listener")
    func sameListener() async throws {
        let pool = try await TestCluster.freshPool(size: 2)
        try await OperationsTestApp.test(pool: pool) { client in
            for path in Self.operationsPaths {
                try await client.execute(uri: path, method: .get) { response in
                    #expect(response.status == .ok, "\(path)")
                }
            }
        }
    }

    @Test("ISSUER_OPS_PORT must be a port, and not the main listener's", arguments: [
        ("nine", "must be a whole number from 1 to 65535"),
        ("70000", "must be a whole number from 1 to 65535"),
        ("8080", "must differ from ISSUER_PORT"),
    ])
    func refusedPort(value: String, problem: String) {
        let error = #expect(throws: ConfigurationError.self) { try Configuration(environment: ["ISSUER_OPS_PORT": value]) }
        #expect(error?.setting == "ISSUER_OPS_PORT")
        #expect(error?.description.contains(problem) == true)
    }

    @Test("ISSUER_OPS_PORT, when valid, is the management listener's port; unset, there is none")
    func validation() throws {
        let configuration = try Configuration(environment: ["ISSUER_HOST": "0.0.0.0", "ISSUER_OPS_PORT": "9090"])
        #expect(configuration.operationsHost == "0.0.0.0")
        #expect(configuration.operationsPort == 9090)
        #expect(try Configuration(environment: [:]).operationsPort == nil)
    }
}
