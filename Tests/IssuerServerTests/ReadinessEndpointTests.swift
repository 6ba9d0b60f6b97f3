import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IssuerCore
import IssuerServer
import Postgres
import Testing
import TestSupport

/// The liveness and readiness probes (docs/reference.md, "Operations").
@Suite("/healthz and /readyz")
struct ReadinessEndpointTests {
    @Test("/healthz answers 200 and /readyz 200 while the database answers")
    func ready() async throws {
        let pool = try await TestCluster.freshPool(size: 2)
        try await OperationsTestApp.test(pool: pool) { client in
            try await client.execute(uri: "/healthz", method: .get) { response in
                #expect(response.status == .ok)
            }
            try await client.execute(uri: "/readyz", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains("ready"))
                #expect(response.headers[HTTPField.Name("X-Request-Id")!]?.isEmpty == false)
            }
        }
    }

    @Test("/readyz answers 503 naming the database while it is unreachable; /healthz stays 200")
    func notReady() async throws {
        let nowhere = try TestDirectories.created("no-server")
        defer { TestDirectories.remove(nowhere) }
        let pool = ConnectionPool(conninfo: "host=\(nowhere.path) dbname=x user=x", size: 1)
        try await OperationsTestApp.test(pool: pool) { client in
            try await client.execute(uri: "/readyz", method: .get) { response in
                #expect(response.status == .serviceUnavailable)
                #expect(String(buffer: response.body).contains("database"))
            }
            try await client.execute(uri: "/healthz", method: .get) { response in
                #expect(response.status == .ok)
            }
        }
    }

    @Test("/readyz answers 503 naming the signing key while no active key is loaded")
    func notReadyWithoutKeys() async throws {
        let pool = try await TestCluster.freshPool(size: 1)
        let empty = TestDirectories.make("no-keys")
        defer { TestDirectories.remove(empty) }
        try await OperationsTestApp.test(pool: pool, environment: ["ISSUER_KEYS_DIR": empty.path]) { client in
            try await client.execute(uri: "/readyz", method: .get) { response in
                #expect(response.status == .serviceUnavailable)
                #expect(String(buffer: response.body).contains("signing key"))
            }
        }
    }
}
