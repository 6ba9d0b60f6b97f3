import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IssuerCore
import IssuerServer
import Testing
import TestSupport

/// The Prometheus metrics endpoint (docs/reference.md, "Operations").
@Suite("/metrics")
struct MetricsEndpointTests {
    @Test("/metrics counts requests by route and status, with latency histograms and pool use")
    func metrics() async throws {
        let pool = try await TestCluster.freshPool(size: 3)
        try await OperationsTestApp.test(pool: pool) { client in
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
    }

    @Test("operations endpoints stay at the root when ISSUER_URL has a path")
    func rootOnly() async throws {
        let pool = try await TestCluster.freshPool(size: 1)
        try await OperationsTestApp.test(pool: pool, environment: ["ISSUER_URL": "https://id.example.com/oidc"]) { client in
            try await client.execute(uri: "/healthz", method: .get) { response in
                #expect(response.status == .ok)
            }
            try await client.execute(uri: "/oidc/metrics", method: .get) { response in
                #expect(response.status == .notFound)
            }
        }
    }
}
