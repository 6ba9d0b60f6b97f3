import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import IssuerServer
import Postgres
import IssuerCore
import JOSE
import Testing
import TestSupport

@Suite("POST /auth/apple/exchange (reference: Native sign-in)")
struct AppleExchangeEndpointTests {
    @Test("a valid Apple token answers our tokens, with no-store, and stores only a hash of the refresh token")
    func success() async throws {
        try await withIssuer { fixture in
            let nonce = "raw-nonce-\(UUID().uuidString)"
            let token = try fixture.apple.identityToken(subject: "001.apple.first", nonce: nonce)
            try await fixture.test { client in
                let response = try await client.postJSON("/auth/apple/exchange", [
                    "id_token": token, "nonce": nonce, "name": ["given_name": "Ada", "family_name": "Lovelace"],
                ])
                #expect(response.status == .ok)
                #expect(response.headers[.cacheControl] == "no-store")
                #expect(response.headers[HTTPField.Name("Pragma")!] == "no-cache")
                let json = response.json
                #expect(json["token_type"] as? String == "Bearer")
                #expect(json["expires_in"] as? Int == 3600)
                #expect(json["scope"] as? String == "openid email profile")
                let refresh = try #require(json["refresh_token"] as? String)
                #expect(RefreshToken.isWellFormed(refresh))

                let ring = try fixture.ring()
                let access = try AccessTokenVerifier(configuration: fixture.configuration, clock: SystemClock()).verify(try #require(json["access_token"] as? String), ring: ring)
                #expect(access.clientID == "clanboards-mobile")
                #expect(access.email == "user@privaterelay.appleid.com")
                #expect(access.name == "Ada Lovelace")
                #expect(access.subject != "001.apple.first", "our sub is never Apple's")

                let idToken = try #require(json["id_token"] as? String)
                let verified = try JWS.verify(idToken, allowedAlgorithms: [.rs256]) { header in ring.key(kid: header.kid ?? "")?.publicKey }
                let claims = try #require(try JSONSerialization.jsonObject(with: verified.payload) as? [String: Any])
                #expect(claims["nonce"] as? String == nonce, "the raw nonce, as the client sent it")
                #expect(claims["aud"] as? String == "clanboards-mobile")
                #expect(claims["sub"] as? String == access.subject)
                #expect(claims["sid"] as? String == access.sessionID)
                #expect(claims["given_name"] as? String == "Ada")

                let stored = try await fixture.pool.query("SELECT token_hash FROM refresh_tokens").rows
                #expect(stored.count == 1)
                #expect(try stored[0].decode([UInt8].self, column: "token_hash") == RefreshToken(value: refresh).hash)
                let leaked = try await fixture.pool.query(
                    "SELECT count(*) AS count FROM refresh_tokens WHERE encode(token_hash, 'escape') LIKE '%' || $1 || '%'", [refresh])
                #expect(try leaked.single!.decode(Int.self, column: "count") == 0)
            }
        }
    }

    @Test("Native sign-in: name members must be strings; {\"given_name\": 7} is 400 invalid_request and signs nobody in", arguments: [
        ["given_name": 7] as [String: any Sendable], ["given_name": "Ada", "family_name": false], ["family_name": ["Lovelace"]],
    ])
    func nameMembersMustBeStrings(name: [String: any Sendable]) async throws {
        try await withIssuer { fixture in
            try await fixture.test { client in
                let response = try await client.postJSON("/auth/apple/exchange", [
                    "id_token": try fixture.apple.identityToken(), "name": name,
                ])
                #expect(response.status == .badRequest)
                #expect(response.json["error"] as? String == "invalid_request")
            }
            #expect(try await fixture.count("users") == 0)
            #expect(try await fixture.count("sessions") == 0)
        }
    }

    @Test("form bodies work; the same Apple sub maps to the same user; a later sign-in keeps the name")
    func formAndStableUser() async throws {
        try await withIssuer { fixture in
            try await fixture.test { client in
                let first = try await client.postJSON("/auth/apple/exchange", [
                    "id_token": try fixture.apple.identityToken(subject: "001.same"),
                    "name": ["given_name": "Grace", "family_name": "Hopper"],
                ])
                #expect(first.status == .ok)
                let second = try await client.postForm("/auth/apple/exchange", [
                    ("id_token", try fixture.apple.identityToken(subject: "001.same", email: nil)), ("scope", "openid profile"),
                ])
                #expect(second.status == .ok, "\(second.json)")
                #expect(second.json["scope"] as? String == "openid profile")
                let other = try await client.postJSON("/auth/apple/exchange", ["id_token": try fixture.apple.identityToken(subject: "001.other")])
                let ring = try fixture.ring()
                let verifier = AccessTokenVerifier(configuration: fixture.configuration, clock: SystemClock())
                let sub1 = try verifier.verify(first.json["access_token"] as! String, ring: ring).subject
                let secondClaims = try verifier.verify(second.json["access_token"] as! String, ring: ring)
                let sub3 = try verifier.verify(other.json["access_token"] as! String, ring: ring).subject
                #expect(sub1 == secondClaims.subject)
                #expect(sub1 != sub3)
                #expect(secondClaims.name == "Grace Hopper", "a sign-in without a name keeps the stored one")
            }
            #expect(try await fixture.count("users") == 2)
            #expect(try await fixture.count("sessions") == 3)
            let email = try await fixture.pool.query("SELECT email FROM users WHERE given_name = 'Grace'").single?.decodeIfPresent(String.self, column: "email")
            #expect(email == "user@privaterelay.appleid.com", "a token without email keeps the stored one")
        }
    }

    @Test("hostile tokens answer 400 invalid_grant and write nothing")
    func hostileTokens() async throws {
        try await withIssuer { fixture in
            let apple = fixture.apple
            let now = Date()
            let claims = try JSONSerialization.data(withJSONObject: [
                "iss": FakeAppleKeys.issuer, "aud": IssuerTestFixture.bundleID, "sub": "victim",
                "iat": Int(now.timeIntervalSince1970), "exp": Int(now.timeIntervalSince1970) + 600,
            ])
            let none = Base64URL.encode(Data(#"{"alg":"none"}"#.utf8)) + "." + Base64URL.encode(claims) + "."
            let hostile: [(String, String, String)] = [
                ("alg none", none, "invalid_grant"),
                ("wrong aud", try apple.identityToken(audience: "com.evil"), "invalid_grant"),
                ("wrong iss", try apple.identityToken(overrides: ["iss": "https://accounts.google.com"]), "invalid_grant"),
                ("expired", try apple.identityToken(issuedAt: now.addingTimeInterval(-7200)), "invalid_grant"),
                ("future iat", try apple.identityToken(issuedAt: now.addingTimeInterval(600)), "invalid_grant"),
                ("unknown kid", try FakeAppleKeys.sign(payload: claims, header: ["alg": "RS256", "kid": "nope"], key: apple.currentKey.key), "invalid_grant"),
                ("foreign signature", try FakeAppleKeys.sign(payload: claims, header: ["alg": "RS256", "kid": apple.currentKid], key: try RSAPrivateKey.generate()), "invalid_grant"),
                ("garbage", "garbage", "invalid_request"),
                ("oversized", String(repeating: "a", count: 20_000), "invalid_request"),
            ]
            try await fixture.test { client in
                for (name, token, code) in hostile {
                    let response = try await client.postJSON("/auth/apple/exchange", ["id_token": token])
                    #expect(response.status == .badRequest, "\(name)")
                    #expect(response.json["error"] as? String == code, "\(name)")
                    #expect(response.headers[.contentType] == "application/json")
                }
                let mismatch = try await client.postJSON("/auth/apple/exchange", [
                    "id_token": try apple.identityToken(nonce: "one"), "nonce": "two",
                ])
                #expect(mismatch.json["error"] as? String == "invalid_grant")
            }
            for table in ["users", "identities", "sessions", "refresh_tokens"] {
                #expect(try await fixture.count(table) == 0, "\(table) untouched")
            }
        }
    }

    @Test("client mistakes get clear RFC 6749 errors, never a 5xx")
    func clientMistakes() async throws {
        try await withIssuer { fixture in
            let token = try fixture.apple.identityToken()
            try await fixture.test { client in
                let cases: [(String, TestResponse, Int, String)] = [
                    ("missing id_token", try await client.postJSON("/auth/apple/exchange", ["nonce": "x"]), 400, "invalid_request"),
                    ("unknown client", try await client.postJSON("/auth/apple/exchange", ["id_token": token, "client_id": "nope"]), 400, "invalid_client"),
                    ("scope not allowed", try await client.postJSON("/auth/apple/exchange", ["id_token": token, "scope": "openid admin"]), 400, "invalid_scope"),
                    ("wrong content type", try await client.executeRequest(
                        uri: "/auth/apple/exchange", method: .post, headers: [.contentType: "text/plain"], body: ByteBuffer(string: "id_token=x")), 400, "invalid_request"),
                    ("malformed JSON", try await client.executeRequest(
                        uri: "/auth/apple/exchange", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: "{\"id_token\":")), 400, "invalid_request"),
                    ("JSON array", try await client.executeRequest(
                        uri: "/auth/apple/exchange", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: "[1]")), 400, "invalid_request"),
                    ("not UTF-8", try await client.executeRequest(
                        uri: "/auth/apple/exchange", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                        body: ByteBuffer(bytes: [0x69, 0x64, 0x3D, 0xFF, 0xFE])), 400, "invalid_request"),
                    ("repeated parameter", try await client.postForm("/auth/apple/exchange", [("id_token", token), ("id_token", token)]), 400, "invalid_request"),
                    ("oversized body", try await client.executeRequest(
                        uri: "/auth/apple/exchange", method: .post, headers: [.contentType: "application/json"],
                        body: ByteBuffer(string: "{\"id_token\":\"" + String(repeating: "a", count: 70_000) + "\"}")), 413, "invalid_request"),
                    ("unknown OAuth path", try await client.get("/oauth2/nothing"), 404, "invalid_request"),
                    ("wrong method", try await client.get("/oauth2/token"), 405, "invalid_request"),
                    ("wrong method", try await client.executeRequest(uri: "/auth/apple/exchange", method: .put, headers: [:], body: nil), 405, "invalid_request"),
                ]
                for (name, response, status, code) in cases {
                    #expect(Int(response.status.code) == status, "\(name)")
                    if status == 405 { #expect(response.headers[.allow] == "POST", "\(name)") }
                    #expect(response.json["error"] as? String == code, "\(name)")
                    #expect(response.json["error_description"] is String, "\(name)")
                }
            }
            #expect(try await fixture.count("sessions") == 0)
        }
    }

    @Test("Apple not configured: 503 temporarily_unavailable saying so")
    func notConfigured() async throws {
        try await withIssuer(environment: ["ISSUER_APPLE_CLIENT_IDS": ""]) { fixture in
            try await fixture.test { client in
                let response = try await client.postJSON("/auth/apple/exchange", ["id_token": try fixture.apple.identityToken()])
                #expect(response.status == .serviceUnavailable)
                #expect(response.json["error"] as? String == "temporarily_unavailable")
                #expect((response.json["error_description"] as? String)?.contains("not configured") == true)
            }
        }
    }

    @Test("many exchanges, one JWKS fetch; Apple down with keys cached still works")
    func jwksCaching() async throws {
        try await withIssuer { fixture in
            try await fixture.test { client in
                for i in 0..<8 {
                    let response = try await client.postJSON("/auth/apple/exchange", ["id_token": try fixture.apple.identityToken(subject: "s\(i)")])
                    #expect(response.status == .ok)
                }
                #expect(fixture.appleFetcher.fetchCount == 1)
                fixture.appleFetcher.setFailing(true)
                #expect(try await client.postJSON("/auth/apple/exchange", ["id_token": try fixture.apple.identityToken()]).status == .ok)
                fixture.appleFetcher.setFailing(false)
            }
            #expect(MetricsExposition.value(fixture.metrics, #"issuer_tokens_issued_total{grant="apple_exchange"}"#) == 9)
            #expect(MetricsExposition.value(fixture.metrics, #"issuer_jwks_fetches_total{provider="apple"}"#) == 1)
        }
    }

    @Test("Apple down with nothing cached: 503")
    func appleDown() async throws {
        try await withIssuer { fixture in
            fixture.appleFetcher.setFailing(true)
            try await fixture.test { client in
                let response = try await client.postJSON("/auth/apple/exchange", ["id_token": try fixture.apple.identityToken()])
                #expect(response.status == .serviceUnavailable)
                #expect(response.json["error"] as? String == "temporarily_unavailable")
                #expect(response.headers[.retryAfter] != nil)
            }
            #expect(MetricsExposition.value(fixture.metrics, "issuer_jwks_fetch_failures_total", labels: [#"provider="apple""#]) == 1)
            #expect(MetricsExposition.value(fixture.metrics, #"issuer_tokens_issued_total{grant="apple_exchange"}"#) == nil, "nothing issued")
        }
    }
}

@Suite("The database going away (reference: Faults and bad input)")
struct DatabaseOutageTests {
    @Test("requests that need the database answer 503 temporarily_unavailable, never 500")
    func databaseDown() async throws {
        try await withIssuer { fixture in
            let nowhere = TestDirectories.make("no-database")
            try FileManager.default.createDirectory(at: nowhere, withIntermediateDirectories: true)
            var dependencies = fixture.dependencies
            dependencies.pool = ConnectionPool(conninfo: "host=\(nowhere.path) dbname=x user=x", size: 1)
            let app = buildApplication(dependencies)
            try await app.test(.router) { client in
                let exchange = try await client.postJSON("/auth/apple/exchange", ["id_token": try fixture.apple.identityToken()])
                #expect(exchange.status == .serviceUnavailable)
                #expect(exchange.json["error"] as? String == "temporarily_unavailable")
                let refresh = try await RefreshRequest.post(client, RefreshToken.generate().value)
                #expect(refresh.status == .serviceUnavailable)
                #expect(refresh.json["error"] as? String == "temporarily_unavailable")
                #expect(try await client.get("/readyz").status == .serviceUnavailable)
            }
        }
    }
}
