import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IssuerCore
@testable import IssuerServer
import Postgres
import Testing
import TestSupport

/// docs/reference.md, "Native sign-in" and "Faults and bad input": what a client sends is bounded before it is verified, stored or signed.
@Suite("Bounds on client input (reference: Native sign-in, §7)")
struct InputBoundsTests {
    static let longName = String(repeating: "A", count: 60 * 1024)

    @Test("refused with 400 invalid_request, and nothing stored", arguments: [
        ("a name that is a string", ["name": "Ada Lovelace"] as [String: any Sendable]),
        ("a 60 KiB given name", ["name": ["given_name": longName, "family_name": "L"]]),
        ("a given name of 257 bytes", ["name": ["given_name": String(repeating: "é", count: 129)]]),
        ("a NUL in a family name", ["name": ["given_name": "Ada", "family_name": "Love\u{0}lace"]]),
        ("an escape sequence in a name", ["name": ["given_name": "\u{1B}[2J", "family_name": "x"]]),
        ("a bidi override in a name", ["name": ["given_name": "evil\u{202E}txt.exe"]]),
        ("a nonce of 257 bytes", ["nonce": String(repeating: "n", count: 257)]),
        ("a newline in a nonce", ["nonce": "a\nb"]),
        ("a scope that is an array", ["scope": ["openid"]]),
        ("a nonce that is an array", ["nonce": ["n"]]),
        ("a name that is an array", ["name": ["Ada"]]),
    ])
    func refused(_ label: String, _ extra: [String: any Sendable]) async throws {
        try await withIssuer { fixture in
            let token = try fixture.apple.identityToken()
            try await fixture.test { client in
                var body: [String: Any] = ["id_token": token]
                for (key, value) in extra { body[key] = value }
                let response = try await client.postJSON("/auth/apple/exchange", body)
                #expect(response.status == .badRequest, "\(label)")
                #expect(response.json["error"] as? String == "invalid_request", "\(label)")
            }
            #expect(try await fixture.count("users") == 0)
            #expect(try await fixture.count("sessions") == 0)
        }
    }

    @Test("members the exchange does not read are ignored, arrays and objects included")
    func unknownMembersIgnored() async throws {
        try await withIssuer { fixture in
            try await fixture.test { client in
                let response = try await client.postJSON("/auth/apple/exchange", [
                    "id_token": try fixture.apple.identityToken(), "extra": [], "list": ["a", 1], "object": ["k": [1]], "number": 7,
                ])
                #expect(response.status == .ok, "\(response.json)")
            }
        }
    }

    @Test("the largest names and nonce accepted still make tokens the issuer itself accepts")
    func largestAcceptedInputs() async throws {
        try await withIssuer { fixture in
            let nonce = String(repeating: "n", count: 256)
            let token = try fixture.apple.identityToken(nonce: nonce)
            try await fixture.test { client in
                let response = try await client.postJSON("/auth/apple/exchange", [
                    "id_token": token, "nonce": nonce,
                    "name": ["given_name": String(repeating: "g", count: 256), "family_name": String(repeating: "f", count: 256)],
                ])
                #expect(response.status == .ok)
                let access = try #require(response.json["access_token"] as? String)
                #expect(access.utf8.count < 16 * 1024)
                // The limit the issuer applies to what it accepts back: revocation must find the session.
                let revoked = try await client.postForm("/oauth2/revoke", [("token", access), ("client_id", "clanboards-mobile")])
                #expect(revoked.status == .ok)
            }
            let revokedSessions = try await fixture.pool.query("SELECT count(*) AS count FROM sessions WHERE revoked_at IS NOT NULL")
            #expect(try revokedSessions.single!.decode(Int.self, column: "count") == 1)
        }
    }

    @Test("a user agent with control characters is stored escaped and bounded")
    func userAgentStoredEscaped() async throws {
        try await withIssuer { fixture in
            let token = try fixture.apple.identityToken()
            try await fixture.test { client in
                let body = try JSONSerialization.data(withJSONObject: ["id_token": token])
                let agent = "App/1.0 \u{85}forged" + String(repeating: "x", count: 2000)
                let response = try await client.executeRequest(
                    uri: "/auth/apple/exchange", method: .post,
                    headers: [.contentType: "application/json", .userAgent: agent], body: ByteBuffer(bytes: body))
                #expect(response.status == .ok)
            }
            let stored = try await fixture.pool.query("SELECT user_agent FROM sessions").single!.decode(String.self, column: "user_agent")
            #expect(!stored.containsControlCharacters)
            #expect(stored.hasPrefix("App/1.0 \\u{85}forged"))
            #expect(stored.utf8.count <= 512 + 16)
        }
    }

    @Test("an error description quoting client text carries only RFC 6749 characters")
    func errorDescriptionCharacters() async throws {
        try await withIssuer { fixture in
            try await fixture.test { client in
                let response = try await client.executeRequest(
                    uri: "/oauth2/token", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                    body: ByteBuffer(string: "grant_type=x&a%0D%0Ab%22=1&a%0D%0Ab%22=2"))
                #expect(response.status == .badRequest)
                let description = try #require(response.json["error_description"] as? String)
                #expect(description.utf8.allSatisfy { (0x20...0x7E).contains($0) && $0 != 0x22 && $0 != 0x5C }, "\(description)")
            }
        }
    }
}

/// docs/reference.md, "Configuration" `apple_audiences`: a client limited to some bundle IDs refuses Apple tokens for others.
@Suite("A client's apple_audiences in the native exchange (reference: Configuration)")
struct AppleAudienceBindingTests {
    @Test("a token for a bundle ID outside the client's apple_audiences is invalid_grant; one inside is accepted")
    func bound() async throws {
        let file = TestDirectories.make("clients.json")
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try #"[{"client_id":"limited","redirect_uris":["limited://cb"],"scopes":["openid"],"apple_audiences":["com.example.other"]}]"#
            .write(to: file, atomically: true, encoding: .utf8)
        try await withIssuer(environment: [
            "ISSUER_CLIENTS_FILE": file.path, "ISSUER_APPLE_CLIENT_IDS": "\(IssuerTestFixture.bundleID),com.example.other",
        ]) { fixture in
            try await fixture.test { client in
                let refused = try await client.postJSON("/auth/apple/exchange", [
                    "id_token": try fixture.apple.identityToken(audience: IssuerTestFixture.bundleID), "client_id": "limited",
                    "scope": "openid",
                ])
                #expect(refused.status == .badRequest)
                #expect(refused.json["error"] as? String == "invalid_grant")
                let accepted = try await client.postJSON("/auth/apple/exchange", [
                    "id_token": try fixture.apple.identityToken(audience: "com.example.other"), "client_id": "limited",
                    "scope": "openid",
                ])
                #expect(accepted.status == .ok)
            }
        }
    }
}
