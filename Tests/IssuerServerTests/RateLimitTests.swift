import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IssuerCore
@testable import IssuerServer
import Testing
import TestSupport

@Suite("ISSUER_RATE_LIMIT over real connections")
struct RateLimitTests {
    @Test("over the allowance: 429 temporarily_unavailable with Retry-After; other endpoints unaffected")
    func tooManyRequests() async throws {
        try await withIssuer(environment: ["ISSUER_RATE_LIMIT": "1/m burst 3"]) { fixture in
            let app = buildApplication(fixture.dependencies)
            try await app.test(.live) { client in
                var statuses: [Int] = []
                for _ in 0..<5 {
                    let response = try await client.postForm("/oauth2/token", [("grant_type", "password")])
                    statuses.append(Int(response.status.code))
                    if response.status == .tooManyRequests {
                        #expect(response.json["error"] as? String == "temporarily_unavailable")
                        #expect(Int(response.headers[.retryAfter] ?? "") ?? 0 >= 1)
                    }
                }
                #expect(statuses == [400, 400, 400, 429, 429])
                #expect(try await client.postForm("/oauth2/revoke", [("token", "x"), ("client_id", "clanboards-mobile")]).status == .tooManyRequests, "the allowance is shared")
                #expect(try await client.get("/oauth2/jwks.json").status == .ok)
            }
        }
    }

    @Test("/account and its sub-paths share the allowance: their two proofs cannot be guessed at speed")
    func accountRoutes() async throws {
        try await withIssuer(environment: ["ISSUER_RATE_LIMIT": "1/m burst 4"]) { fixture in
            let app = buildApplication(fixture.dependencies)
            try await app.test(.live) { client in
                let bearer: HTTPFields = [.authorization: "Bearer not-a-token"]
                var statuses: [Int] = []
                for (method, path) in [
                    (HTTPRequest.Method.get, "/account"), (.get, "/account/sessions"), (.delete, "/account/sessions/x"),
                    (.post, "/account/identities"), (.delete, "/account/identities/google"), (.delete, "/account"),
                ] {
                    let response = try await client.executeRequest(uri: path, method: method, headers: bearer, body: nil)
                    statuses.append(Int(response.status.code))
                    if response.status == .tooManyRequests {
                        #expect(response.json["error"] as? String == "temporarily_unavailable")
                        #expect(Int(response.headers[.retryAfter] ?? "") ?? 0 >= 1)
                    }
                }
                #expect(statuses.prefix(4).allSatisfy { $0 == 401 || $0 == 400 }, "\(statuses)")
                #expect(statuses.suffix(2) == [429, 429])
                #expect(try await client.postForm("/oauth2/revoke", [("token", "x"), ("client_id", "clanboards-mobile")]).status == .tooManyRequests, "shared with the token endpoints")
            }
        }
    }

    @Test("a route is one route however its path is spelled: a trailing or doubled slash shares the limit")
    func spellingsShareTheLimit() async throws {
        try await withIssuer(environment: ["ISSUER_RATE_LIMIT": "1/m burst 2"]) { fixture in
            let app = buildApplication(fixture.dependencies)
            try await app.test(.live) { client in
                var statuses: [Int] = []
                for path in ["/oauth2/revoke/", "//oauth2/revoke", "/oauth2/revoke/", "/oauth2//token/"] {
                    let response = try await client.postForm(path, [("token", "x"), ("client_id", "clanboards-mobile")])
                    statuses.append(Int(response.status.code))
                    if response.status == .tooManyRequests {
                        #expect(response.json["error"] as? String == "temporarily_unavailable")
                    }
                }
                #expect(statuses == [200, 200, 429, 429])
            }
        }
    }
}
