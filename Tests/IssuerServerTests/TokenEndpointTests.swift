import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IssuerCore
import Testing
import TestSupport

@Suite("POST /oauth2/token: grant dispatch and RFC 8693 token exchange")
struct TokenEndpointTests {
    static let exchangeGrant = "urn:ietf:params:oauth:grant-type:token-exchange"
    static let idTokenType = "urn:ietf:params:oauth:token-type:id_token"

    @Test("an Apple identity token as subject_token answers tokens with issued_token_type")
    func tokenExchange() async throws {
        try await withIssuer { fixture in
            try await fixture.test { client in
                let response = try await client.postForm("/oauth2/token", [
                    ("grant_type", Self.exchangeGrant), ("client_id", "clanboards-mobile"),
                    ("subject_token", try fixture.apple.identityToken()), ("subject_token_type", Self.idTokenType),
                ])
                #expect(response.status == .ok)
                #expect(response.headers[.cacheControl] == "no-store")
                #expect(response.json["issued_token_type"] as? String == "urn:ietf:params:oauth:token-type:access_token")
                #expect(response.json["refresh_token"] is String)
                #expect(response.json["id_token"] is String)
            }
            #expect(try await fixture.count("sessions") == 1)
        }
    }

    @Test("an invalid subject_token is invalid_request (RFC 8693 §2.2.2) and writes nothing")
    func invalidSubjectToken() async throws {
        try await withIssuer { fixture in
            try await fixture.test { client in
                for token in [try fixture.apple.identityToken(audience: "com.evil"), "garbage"] {
                    let response = try await client.postForm("/oauth2/token", [
                        ("grant_type", Self.exchangeGrant), ("client_id", "clanboards-mobile"),
                        ("subject_token", token), ("subject_token_type", Self.idTokenType),
                    ])
                    #expect(response.status == .badRequest)
                    #expect(response.json["error"] as? String == "invalid_request")
                }
                let wrongType = try await client.postForm("/oauth2/token", [
                    ("grant_type", Self.exchangeGrant), ("client_id", "clanboards-mobile"),
                    ("subject_token", try fixture.apple.identityToken()), ("subject_token_type", "urn:ietf:params:oauth:token-type:jwt"),
                ])
                #expect(wrongType.json["error"] as? String == "invalid_request")
            }
            #expect(try await fixture.count("sessions") == 0)
        }
    }

    @Test("unknown and missing grant types", arguments: [
        ([("grant_type", "password"), ("username", "a"), ("password", "b")], "unsupported_grant_type"),
        ([("grant_type", "client_credentials")], "unsupported_grant_type"),
        ([("client_id", "clanboards-mobile")], "invalid_request"),
    ] as [([(String, String)], String)])
    func grantTypes(fields: [(String, String)], error: String) async throws {
        try await withIssuer { fixture in
            try await fixture.test { client in
                let response = try await client.postForm("/oauth2/token", fields)
                #expect(response.status == .badRequest)
                #expect(response.json["error"] as? String == error)
            }
        }
    }
}
