import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IssuerCore
@testable import IssuerServer
import Postgres
import Testing
import TestSupport

@Suite("The database going silent (reference: Faults and bad input)")
struct SilentDatabaseEndpointTests {
    @Test("while the database is silent, requests answer 503 temporarily_unavailable and /readyz 503; then they recover by themselves")
    func silentThenBack() async throws {
        try await withIssuer { fixture in
            let (proxy, conninfo) = try FreezableProxy.inFront(of: fixture.conninfo)
            defer { proxy.stop() }
            try await ConnectionPool(conninfo: conninfo, size: 2, timeout: .seconds(2)).closing { pool in
                var dependencies = fixture.dependencies
                dependencies.pool = pool
                let app = buildApplication(dependencies)
                try await app.test(.router) { client in
                    #expect(try await client.get("/readyz").status == .ok)

                    proxy.freeze()
                    // Bounded by three deadlines: a stuck request must fail the test, not hang it.
                    let refresh = await WithinBound.result(seconds: 6) {
                        let response = try await RefreshRequest.post(client, RefreshToken.generate().value)
                        return (response.status.code, response.json["error"] as? String)
                    }
                    #expect(try refresh?.get().0 == 503)
                    #expect(try refresh?.get().1 == "temporarily_unavailable")
                    let readiness = await WithinBound.result(seconds: 6) { try await client.get("/readyz").status.code }
                    #expect(try readiness?.get() == 503)

                    proxy.thaw()
                    // Each try opens a new link; a loaded machine may need more than one within 2 s.
                    var readyAgain = false
                    for _ in 0..<5 where !readyAgain { readyAgain = try await client.get("/readyz").status == .ok }
                    #expect(readyAgain)
                    let after = try await RefreshRequest.post(client, RefreshToken.generate().value)
                    #expect(after.json["error"] as? String == "invalid_grant")
                }
            }
        }
    }

    @Test("Operations, /readyz within 1 s: a silent database makes /readyz 503 well before the pool's own deadline")
    func readinessDoesNotWaitOnTheDatabase() async throws {
        try await withIssuer { fixture in
            let (proxy, conninfo) = try FreezableProxy.inFront(of: fixture.conninfo)
            defer { proxy.stop() }
            // A pool deadline far longer than the probe's: an answer in under 4 s can only come
            // from /readyz's own deadline.
            try await ConnectionPool(conninfo: conninfo, size: 2, timeout: .seconds(20)).closing { pool in
                var dependencies = fixture.dependencies
                dependencies.pool = pool
                let app = buildApplication(dependencies)
                try await app.test(.router) { client in
                    let before = try await client.get("/readyz")
                    #expect(before.status == .ok)
                    proxy.freeze()
                    let readiness = await WithinBound.result(seconds: 4) { try await client.get("/readyz").status.code }
                    #expect(try readiness?.get() == 503, "no answer within 4 s, or not 503")
                    proxy.thaw()
                }
            }
        }
    }

    @Test("Operations, /readyz within 1 s: a check that never answers counts as failing at the deadline")
    func hangingCheckFailsAtTheDeadline() async throws {
        let readiness = Readiness(checks: [
            Readiness.Check(name: "hangs") { (try? await Task.sleep(for: .seconds(60))) != nil },
            Readiness.Check(name: "fine") { true },
        ])
        let failing = await WithinBound.result(seconds: 10) { await readiness.failing(within: .milliseconds(200)) }
        #expect(try failing?.get() == ["hangs"])
    }
}
