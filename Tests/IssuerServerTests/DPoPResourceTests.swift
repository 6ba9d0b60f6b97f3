import Crypto
import Foundation
import HTTPTypes
import HummingbirdTesting
import JOSE
import Testing
import TestSupport

/// docs/reference.md, "DPoP" at the endpoints that take access tokens (RFC 9449 §7): a bound
/// token only as `DPoP` with a proof from its key whose `ath` is its hash.
@Suite("DPoP at /userinfo and /account (reference: DPoP)")
struct DPoPResourceTests {
    private func get(
        _ client: some TestClientProtocol, _ uri: String, authorization: String, proof: String?
    ) async throws -> TestResponse {
        var headers: HTTPFields = [.authorization: authorization]
        if let proof { headers[DPoPClient.header] = proof }
        return try await client.executeRequest(uri: uri, method: .get, headers: headers, body: nil)
    }

    private func ath(_ token: String) -> String {
        #","ath":""# + Base64URL.encode(Array(SHA256.hash(data: Data(token.utf8)))) + #"""#
    }

    @Test("a bound token: refused as Bearer with the DPoP challenge; accepted as DPoP with a proof from its key; refused with a wrong ath or key")
    func boundToken() async throws {
        try await withIssuer { fixture in
            try await fixture.test { client in
                let key = DPoPKey()
                let signIn = try await DPoPClient.signIn(client, fixture, proof: try DPoPClient.proof(key, fixture, "/auth/apple/exchange"))
                let token = try #require(signIn.json["access_token"] as? String)
                let url = DPoPClient.url(fixture, "/userinfo")
                let now = fixture.clock.now

                let asBearer = try await get(client, "/userinfo", authorization: "Bearer \(token)", proof: nil)
                #expect(asBearer.status == .unauthorized)
                #expect(asBearer.headers[.wwwAuthenticate]?.hasPrefix(#"DPoP error="invalid_token""#) == true)

                let good = try key.proof(method: "GET", url: url, issuedAt: now, extraClaims: ath(token))
                let answer = try await get(client, "/userinfo", authorization: "DPoP \(token)", proof: good)
                #expect(answer.status == .ok)
                #expect(answer.json["sub"] is String)
                let replayed = try await get(client, "/userinfo", authorization: "DPoP \(token)", proof: good)
                #expect(replayed.headers[.wwwAuthenticate]?.hasPrefix(#"DPoP error="invalid_dpop_proof""#) == true)

                let noProof = try await get(client, "/userinfo", authorization: "DPoP \(token)", proof: nil)
                #expect(noProof.status == .unauthorized)
                let wrongHash = try key.proof(method: "GET", url: url, issuedAt: now, extraClaims: ath("another token"))
                let badAth = try await get(client, "/userinfo", authorization: "DPoP \(token)", proof: wrongHash)
                #expect(badAth.headers[.wwwAuthenticate]?.hasPrefix(#"DPoP error="invalid_dpop_proof""#) == true)
                let otherKey = try DPoPKey().proof(method: "GET", url: url, issuedAt: now, extraClaims: ath(token))
                let stolen = try await get(client, "/userinfo", authorization: "DPoP \(token)", proof: otherKey)
                #expect(stolen.headers[.wwwAuthenticate]?.hasPrefix(#"DPoP error="invalid_token""#) == true)

                let accountProof = try key.proof(
                    method: "GET", url: DPoPClient.url(fixture, "/account/sessions"), issuedAt: now, extraClaims: ath(token))
                let sessions = try await get(client, "/account/sessions", authorization: "DPoP \(token)", proof: accountProof)
                #expect(sessions.status == .ok)
                let accountAsBearer = try await get(client, "/account", authorization: "Bearer \(token)", proof: nil)
                #expect(accountAsBearer.status == .unauthorized)
            }
        }
    }

    @Test("an unbound token still works as Bearer, and is refused as DPoP")
    func unboundToken() async throws {
        try await withIssuer { fixture in
            try await fixture.test { client in
                let token = try #require(try await DPoPClient.signIn(client, fixture, proof: nil).json["access_token"] as? String)
                #expect(try await get(client, "/userinfo", authorization: "Bearer \(token)", proof: nil).status == .ok)
                let proof = try DPoPKey().proof(
                    method: "GET", url: DPoPClient.url(fixture, "/userinfo"), issuedAt: fixture.clock.now, extraClaims: ath(token))
                let asDPoP = try await get(client, "/userinfo", authorization: "DPoP \(token)", proof: proof)
                #expect(asDPoP.status == .unauthorized)
            }
        }
    }
}
