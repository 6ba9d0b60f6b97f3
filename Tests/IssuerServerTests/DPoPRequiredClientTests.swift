import Foundation
import HTTPTypes
import HummingbirdTesting
import IssuerCore
import Testing
import TestSupport

/// docs/reference.md, "DPoP": a client registered with `"dpop": "required"` gets nothing without a proof.
@Suite("A client that requires DPoP (reference: DPoP)")
struct DPoPRequiredClientTests {
    static func environment() throws -> [String: String] {
        let file = TestDirectories.make("clients.json")
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try #"""
            [{"client_id": "clanboards-mobile", "redirect_uris": ["clanboards://cb"], "scopes": ["openid", "email", "profile"],
              "dpop": "required"}]
            """#.write(to: file, atomically: true, encoding: .utf8)
        return ["ISSUER_CLIENTS_FILE": file.path]
    }

    @Test("a sign-in or refresh without a proof is invalid_dpop_proof and writes nothing; with one it is served")
    func requiresProofs() async throws {
        try await withIssuer(environment: try Self.environment()) { fixture in
            try await fixture.test { client in
                let refused = try await DPoPClient.signIn(client, fixture, proof: nil)
                #expect(refused.status == .badRequest)
                #expect(refused.json["error"] as? String == "invalid_dpop_proof")
                let sessions: Int = try await fixture.pool.query("SELECT count(*)::int AS n FROM sessions").rows[0].decode(column: "n")
                #expect(sessions == 0)

                let key = DPoPKey()
                let signIn = try await DPoPClient.signIn(client, fixture, proof: try DPoPClient.proof(key, fixture, "/auth/apple/exchange"))
                #expect(signIn.json["token_type"] as? String == "DPoP")
                let r0 = try #require(signIn.json["refresh_token"] as? String)
                let noProof = try await DPoPClient.refresh(client, r0, proof: nil)
                #expect(noProof.json["error"] as? String == "invalid_dpop_proof")
                let spent: Bool = try await fixture.pool.query(
                    "SELECT spent_at IS NOT NULL AS spent FROM refresh_tokens WHERE token_hash = $1", [RefreshToken(value: r0).hash]
                ).rows[0].decode(column: "spent")
                #expect(!spent)
                #expect(try await DPoPClient.refresh(client, r0, proof: try DPoPClient.proof(key, fixture)).status == .ok)
            }
        }
    }
}
