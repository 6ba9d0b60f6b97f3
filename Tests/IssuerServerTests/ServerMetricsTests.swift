@testable import IssuerServer
import Testing

/// the request metrics (docs/reference.md, "Operations"), recorded straight into a registry.
@Suite("Server metrics")
struct ServerMetricsTests {
    @Test("a method no client needs counts as other: a client cannot grow the label space")
    func unknownMethods() {
        let metrics = ServerMetrics()
        for method in ["BREW", "PROPFIND", "X\(Int.random(in: 0..<1_000_000))"] {
            metrics.recordRequest(route: "unmatched", method: method, status: 405, duration: .milliseconds(1))
        }
        let text = MetricsExposition.text(metrics)
        #expect(text.contains(#"issuer_http_requests_total{route="unmatched",method="other",status="405"} 3"#))
        #expect(!text.contains("BREW") && !text.contains("PROPFIND"))
    }

    @Test("each label set accumulates in one series, however often it is recorded")
    func accumulates() {
        let metrics = ServerMetrics()
        for status in [200, 200, 400, 200] {
            metrics.recordRequest(route: "/oauth2/token", method: "POST", status: status, duration: .milliseconds(3))
        }
        let text = MetricsExposition.text(metrics)
        #expect(text.contains(#"issuer_http_requests_total{route="/oauth2/token",method="POST",status="200"} 3"#))
        #expect(text.contains(#"issuer_http_requests_total{route="/oauth2/token",method="POST",status="400"} 1"#))
        #expect(text.contains(#"issuer_http_request_duration_seconds_count{route="/oauth2/token",method="POST",status="200"} 3"#))
    }
}
