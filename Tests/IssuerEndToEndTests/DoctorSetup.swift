import Foundation
import Testing
import TestSupport

/// What `issuer doctor` is run against in the end-to-end suites (docs/operations.md and
/// docs/reference.md, "Admin CLI"): a healthy deployment's settings, a stand-in for Apple's
/// JWKS, and the checks' statuses read from its JSON.
enum DoctorSetup {
    /// A loopback endpoint answering every request with `jwks` as Apple's JWKS would.
    static func appleKeys(_ body: Data) throws -> ScriptedHTTPServer {
        let text = String(decoding: body, as: UTF8.self)
        return try ScriptedHTTPServer { _, send in
            _ = send("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n\(text)")
        }
    }

    /// A deployment as production runs it: external database, a secret, https, an API audience,
    /// Apple configured.
    static func healthy(database: String, keys: URL, jwksPort: Int) -> [String: String] {
        [
            "ISSUER_DATABASE_URL": database, "ISSUER_KEYS_DIR": keys.path, "ISSUER_URL": "https://id.example.com",
            "ISSUER_SECRET": Data(repeating: 3, count: 32).base64EncodedString(), "ISSUER_AUDIENCE": "https://api.example.com",
            "ISSUER_APPLE_CLIENT_IDS": "com.example.app", "ISSUER_APPLE_JWKS_URL": "http://127.0.0.1:\(jwksPort)/auth/keys",
        ]
    }

    /// Each check of a `doctor --output json` document, by name: its status.
    static func statuses(_ document: [String: Any]) throws -> [String: String] {
        let checks = try #require(document["checks"] as? [[String: Any]])
        #expect(checks.allSatisfy { Set($0.keys) == ["name", "status", "reason"] })
        return Dictionary(uniqueKeysWithValues: checks.compactMap { check in
            (check["name"] as? String).map { ($0, check["status"] as? String ?? "?") }
        })
    }
}
