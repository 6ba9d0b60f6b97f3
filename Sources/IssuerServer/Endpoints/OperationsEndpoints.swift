import Foundation
import Hummingbird
import IssuerCore
import Postgres

/// docs/reference.md, "Operations": `/healthz`, `/readyz` and `/metrics`, always at the server's root, whatever the
/// path of `ISSUER_URL`, so a proxy that forwards only the issuer's path never exposes them.
struct OperationsEndpoints {
    let readiness: Readiness
    let metrics: ServerMetrics
    let pool: ConnectionPool
    let keys: KeyRingMonitor
    let clock: any WallClock

    func register(on routes: RouteRegistrar) {
        routes.add(.healthz) { _, _ in
            Self.json(.ok, ["status": "ok"])
        }
        routes.add(.readyz) { _, _ in
            let failing = await readiness.failing()
            if failing.isEmpty {
                return Self.json(.ok, ["status": "ready"])
            }
            return Self.json(.serviceUnavailable, ["status": "unavailable", "failing": failing.joined(separator: ",")])
        }
        routes.add(.metrics) { _, _ in
            metrics.recordPool(pool.statistics)
            metrics.recordKeyRing(keys.current.ring, at: clock.now)
            var buffer: [UInt8] = []
            metrics.registry.emit(into: &buffer)
            if let process = ProcessStatistics.current() {
                buffer.append(contentsOf: process.exposition.utf8)
            }
            return Response(
                status: .ok,
                headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(bytes: buffer)))
        }
    }

    private static func json(_ status: HTTPResponse.Status, _ body: [String: String]) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])) ?? Data("{}".utf8)
        return Response(
            status: status,
            headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
