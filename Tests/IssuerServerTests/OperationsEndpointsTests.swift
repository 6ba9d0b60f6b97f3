import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IssuerCore
import IssuerServer
import Logging
import Postgres
import Testing
import TestSupport

@Suite("Operations endpoints")
struct OperationsEndpointsTests {
    static func dependencies(pool: ConnectionPool, environment: [String: String] = [:]) throws -> IssuerDependencies {
        var environment = environment
        if environment["ISSUER_KEYS_DIR"] == nil { environment["ISSUER_KEYS_DIR"] = try TestKeyRing.make().path }
        return IssuerDependencies(
            configuration: try Configuration(environment: environment), pool: pool, logger: Logger(label: "test"),
            serverSecret: ServerSecret(bytes: Array(repeating: 1, count: 32)), clock: SystemClock())
    }

    @Test("/healthz answers 200 and /readyz 200 while the database answers")
    func ready() async throws {
        let pool = try await TestCluster.freshPool(size: 2)
        let app = buildApplication(try Self.dependencies(pool: pool))
        try await app.test(.router) { client in
            try await client.execute(uri: "/healthz", method: .get) { response in
                #expect(response.status == .ok)
            }
            try await client.execute(uri: "/readyz", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains("ready"))
                #expect(response.headers[HTTPField.Name("X-Request-Id")!]?.isEmpty == false)
            }
        }
        await pool.close()
    }

    @Test("/readyz answers 503 naming the database while it is unreachable; /healthz stays 200")
    func notReady() async throws {
        let nowhere = TestDirectories.make("no-server")
        try FileManager.default.createDirectory(at: nowhere, withIntermediateDirectories: true)
        let pool = ConnectionPool(conninfo: "host=\(nowhere.path) dbname=x user=x", size: 1)
        let app = buildApplication(try Self.dependencies(pool: pool))
        try await app.test(.router) { client in
            try await client.execute(uri: "/readyz", method: .get) { response in
                #expect(response.status == .serviceUnavailable)
                #expect(String(buffer: response.body).contains("database"))
            }
            try await client.execute(uri: "/healthz", method: .get) { response in
                #expect(response.status == .ok)
            }
        }
        await pool.close()
    }

    @Test("/readyz answers 503 naming the signing key while no active key is loaded")
    func notReadyWithoutKeys() async throws {
        let pool = try await TestCluster.freshPool(size: 1)
        let empty = TestDirectories.make("no-keys")
        let app = buildApplication(try Self.dependencies(pool: pool, environment: ["ISSUER_KEYS_DIR": empty.path]))
        try await app.test(.router) { client in
            try await client.execute(uri: "/readyz", method: .get) { response in
                #expect(response.status == .serviceUnavailable)
                #expect(String(buffer: response.body).contains("signing key"))
            }
        }
        await pool.close()
    }

    @Test("/metrics counts requests by route and status, with latency histograms and pool use")
    func metrics() async throws {
        let pool = try await TestCluster.freshPool(size: 3)
        let app = buildApplication(try Self.dependencies(pool: pool))
        try await app.test(.router) { client in
            for _ in 0..<3 { try await client.execute(uri: "/healthz", method: .get) { _ in } }
            try await client.execute(uri: "/no/such/route", method: .get) { response in
                #expect(response.status == .notFound)
            }
            try await client.execute(uri: "/metrics", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType]?.hasPrefix("text/plain") == true)
                let text = String(buffer: response.body)
                #expect(text.contains(#"issuer_http_requests_total{route="/healthz",method="GET",status="200"} 3"#))
                #expect(text.contains(#"status="404""#))
                #expect(text.contains(#"issuer_http_request_duration_seconds_bucket{route="/healthz",method="GET",status="200",le="+Inf"} 3"#))
                #expect(text.contains("issuer_db_pool_size_connections 3"))
                #expect(text.contains("issuer_db_pool_in_use_connections"))
            }
        }
        await pool.close()
    }

    @Test("operations endpoints stay at the root when ISSUER_URL has a path")
    func rootOnly() async throws {
        let pool = try await TestCluster.freshPool(size: 1)
        let app = buildApplication(try Self.dependencies(pool: pool, environment: ["ISSUER_URL": "https://id.example.com/oidc"]))
        try await app.test(.router) { client in
            try await client.execute(uri: "/healthz", method: .get) { response in
                #expect(response.status == .ok)
            }
            try await client.execute(uri: "/oidc/metrics", method: .get) { response in
                #expect(response.status == .notFound)
            }
        }
        await pool.close()
    }
}
