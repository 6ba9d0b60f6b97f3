import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IssuerCore
import JOSE
import Testing
import TestSupport

@Suite("Discovery (reference: Discovery)")
struct DiscoveryEndpointTests {
    @Test("discovery: issuer exactly ISSUER_URL, every advertised URL served, every advertised grant accepted",
          arguments: ["http://127.0.0.1:8080", "https://id.example.com/oidc", "https://id.example.com/oidc/"])
    func discovery(issuerURL: String) async throws {
        try await withIssuer(environment: ["ISSUER_URL": issuerURL]) { fixture in
            let prefix = fixture.configuration.pathPrefix
            try await fixture.test { client in
                let response = try await client.get("\(prefix)/.well-known/openid-configuration")
                #expect(response.status == .ok)
                let document = response.json
                #expect(document["issuer"] as? String == issuerURL)
                for required in ["jwks_uri", "response_types_supported", "subject_types_supported", "id_token_signing_alg_values_supported",
                                 "token_endpoint", "apple_exchange_endpoint", "grant_types_supported", "scopes_supported", "claims_supported",
                                 "token_endpoint_auth_methods_supported", "authorization_endpoint", "end_session_endpoint",
                                 "userinfo_endpoint", "revocation_endpoint", "code_challenge_methods_supported"] {
                    #expect(document[required] != nil, "\(required)")
                }
                #expect(document["id_token_signing_alg_values_supported"] as? [String] == ["RS256"])
                #expect(document["subject_types_supported"] as? [String] == ["public"])
                #expect(document["code_challenge_methods_supported"] as? [String] == ["S256"])
                #expect(document["dpop_signing_alg_values_supported"] as? [String] == ["ES256", "RS256"])
                #expect(document["response_types_supported"] as? [String] == ["code"])
                #expect((document["grant_types_supported"] as? [String])?.contains("authorization_code") == true)

                let alias = try await client.get("/.well-known/oauth-authorization-server\(prefix)")
                #expect(alias.status == .ok)
                #expect(alias.json["issuer"] as? String == issuerURL)

                // Every URL it names resolves on this server (a GET may be 405/400, never 404).
                let base = issuerURL.hasSuffix("/") ? String(issuerURL.dropLast()) : issuerURL
                for (name, value) in document where name.hasSuffix("_endpoint") || name == "jwks_uri" {
                    let url = try #require(value as? String)
                    #expect(url.hasPrefix(base + "/"), "\(name) hangs off the issuer")
                    let path = prefix + String(url.dropFirst(base.count))
                    let probe = try await client.executeRequest(
                        uri: path, method: name == "jwks_uri" ? .get : .post,
                        headers: [.contentType: "application/x-www-form-urlencoded"], body: ByteBuffer(string: "probe=1"))
                    #expect(probe.status != .notFound, "\(name) \(path)")
                }
                for grant in try #require(document["grant_types_supported"] as? [String]) {
                    let probe = try await client.postForm("\(prefix)/oauth2/token", [("grant_type", grant)])
                    #expect(probe.json["error"] as? String != "unsupported_grant_type", "\(grant)")
                }
            }
        }
    }
}
