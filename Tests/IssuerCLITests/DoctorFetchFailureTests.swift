import Foundation
import IssuerCore
import IssuerStorage
@testable import issuer
import Testing
import TestSupport

/// `issuer doctor`'s keys checks say why a provider's documents could not be had, by the reasons
/// the server's logs and metrics use (reference: Faults and bad input), against providers played
/// on loopback by a scripted HTTP server: a provider answering with another issuer is not "unreachable".
@Suite struct DoctorFetchFailureTests {
    @Test("each provider's failed check names its reason: issuer_mismatch, not_json, too_large, connection_failed")
    func reasons() async throws {
        let server = try ScriptedHTTPServer { path, send in
            let body: String
            var length: Int?
            switch path {
            case "/liar/.well-known/openid-configuration": body = #"{"issuer":"https://evil.example","jwks_uri":"https://evil.example/keys"}"#
            case "/huge/.well-known/openid-configuration": (body, length) = ("{", 2_000_000)
            default: body = "<html>maintenance</html>"
            }
            _ = send("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(length ?? body.utf8.count)\r\nConnection: close\r\n\r\n\(body)")
        }
        defer { server.stop() }
        // Port 1 on loopback: nothing listens there (a port another server closed could be taken
        // meanwhile by one of the tests running beside this one), so connecting is refused.
        let base = "http://127.0.0.1:\(server.port)"
        let expected = ["liar": "issuer_mismatch", "html": "not_json", "huge": "too_large", "gone": "connection_failed"]
        let entries: [[String: Any]] = expected.keys.sorted().map { id in
            ["id": id, "kind": "oidc", "issuer": id == "gone" ? "http://127.0.0.1:1" : "\(base)/\(id)", "native_audiences": ["a"]]
        }
        let file = TestDirectories.make("providers.json")
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        defer { TestDirectories.remove(file) }
        try JSONSerialization.data(withJSONObject: entries).write(to: file)

        // The deadline only bounds a hung fetch: every answer here comes at once, but a test process
        // starved by hundreds of others beside it can take seconds to read one, and a deadline missed
        // that way would report timed_out instead of the reason under test.
        let checks = await DoctorCommand.providerKeysChecks(
            try Configuration(environment: ["ISSUER_PROVIDERS_FILE": file.path]), timeout: .seconds(10))
        #expect(checks.count == expected.count)
        for check in checks {
            let id = String(check.name.prefix { $0 != " " })
            let reason = try #require(expected[id])
            #expect(check.status == .fail)
            // The HTTP client retries a refused connect until the deadline, so under load a port
            // nobody listens on may end as the deadline: either is a named reason.
            let accepted = id == "gone" ? [reason, "timed_out"] : [reason]
            #expect(accepted.contains { check.reason.contains("reason \($0)") }, "\(check.reason)")
            #expect(!check.reason.contains("unreachable"), "\(check.reason)")
        }
    }
}
