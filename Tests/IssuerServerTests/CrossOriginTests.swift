import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IssuerCore
@testable import IssuerServer
import Testing
import TestSupport

/// docs/reference.md, "Browser clients": CORS on the token, revocation, userinfo and account
/// endpoints for the origins the clients list, and for no other origin or route.
@Suite("Browser clients (CORS by allowed_origins)")
struct CrossOriginTests {
    static let listed = "https://app.example.com"
    static let otherListed = "http://localhost:19006"

    /// Two clients, each listing one origin: an origin listed by any client counts.
    static func environment() throws -> [String: String] {
        let file = TestDirectories.make("clients.json")
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try #"""
            [{"client_id": "clanboards-mobile", "redirect_uris": ["clanboards://cb"], "scopes": ["openid", "email", "profile"],
              "allowed_origins": ["https://app.example.com"]},
             {"client_id": "expo-web", "redirect_uris": ["http://localhost:19006/cb"], "scopes": ["openid"],
              "allowed_origins": ["http://localhost:19006"]}]
            """#.write(to: file, atomically: true, encoding: .utf8)
        return ["ISSUER_CLIENTS_FILE": file.path]
    }

    static let corsFields: [HTTPField.Name] = [
        .accessControlAllowOrigin, .accessControlAllowMethods, .accessControlAllowHeaders, .accessControlMaxAge,
        .accessControlExposeHeaders, .accessControlAllowCredentials,
    ]

    static func preflight(
        _ client: some TestClientProtocol, _ path: String, origin: String?, method: String = "POST"
    ) async throws -> TestResponse {
        var headers: HTTPFields = [.accessControlRequestMethod: method, .accessControlRequestHeaders: "authorization,content-type,dpop"]
        if let origin { headers[.origin] = origin }
        return try await client.executeRequest(uri: path, method: .options, headers: headers, body: nil)
    }

    /// The fields an answer to a listed origin carries, exactly; and the ones it must not.
    static func expectActualCORS(_ response: TestResponse, origin: String, _ what: String) {
        #expect(response.headers[.accessControlAllowOrigin] == origin, "\(what)")
        #expect(response.headers[values: .accessControlAllowOrigin].count == 1, "\(what)")
        #expect(response.headers[.accessControlExposeHeaders] == "WWW-Authenticate, Retry-After, DPoP-Nonce", "\(what)")
        #expect(response.headers[.vary] == "Origin", "\(what)")
        #expect(response.headers[.accessControlAllowCredentials] == nil, "\(what): never credentials")
        #expect(response.headers[.accessControlAllowMethods] == nil, "\(what): methods only on a preflight")
    }

    static func expectNoCORS(_ response: TestResponse, _ what: String) {
        for name in corsFields {
            #expect(response.headers[name] == nil, "\(what): \(name)")
        }
    }

    @Test("a preflight from a listed origin is 204 with the route's methods and the headers browser clients send", arguments: [
        ("/oauth2/token", "POST", "POST"),
        ("/oauth2/revoke", "POST", "POST"),
        ("/userinfo", "GET", "GET, POST"),
        ("/account", "DELETE", "GET, DELETE"), ("/account/sessions", "DELETE", "GET, DELETE"),
    ])
    func preflightFromListedOrigin(path: String, requested: String, methods: String) async throws {
        try await withIssuer(environment: try Self.environment()) { fixture in
            try await fixture.test { client in
                for origin in [Self.listed, Self.otherListed] {
                    let response = try await Self.preflight(client, path, origin: origin, method: requested)
                    #expect(response.status == .noContent)
                    #expect(response.body.readableBytes == 0)
                    #expect(response.headers[.accessControlAllowOrigin] == origin)
                    #expect(response.headers[.accessControlAllowMethods] == methods)
                    #expect(response.headers[.accessControlAllowHeaders] == "Authorization, Content-Type, DPoP")
                    #expect(response.headers[.accessControlMaxAge] == "600")
                    #expect(response.headers[.vary] == "Origin")
                    #expect(response.headers[.accessControlAllowCredentials] == nil)
                }
            }
        }
    }

    @Test("answers to a listed origin echo it, errors included, with Vary: Origin and the readable fields")
    func actualAnswersToListedOrigin() async throws {
        try await withIssuer(environment: try Self.environment()) { fixture in
            try await fixture.test { client in
                let origin: HTTPFields = [.origin: Self.listed]
                let tokens = try await NativeSignIn.tokens(client, fixture)
                let access = try #require(tokens["access_token"] as? String)
                let refresh = try #require(tokens["refresh_token"] as? String)
                let form: HTTPFields = [.origin: Self.listed, .contentType: "application/x-www-form-urlencoded"]

                let refreshed = try await client.executeRequest(
                    uri: "/oauth2/token", method: .post, headers: form,
                    body: ByteBuffer(string: "grant_type=refresh_token&refresh_token=\(refresh)&client_id=clanboards-mobile"))
                #expect(refreshed.status == .ok)
                Self.expectActualCORS(refreshed, origin: Self.listed, "token 200")

                let badGrant = try await client.executeRequest(
                    uri: "/oauth2/token", method: .post, headers: form, body: ByteBuffer(string: "grant_type=password"))
                #expect(badGrant.status == .badRequest)
                #expect(badGrant.json["error"] as? String == "unsupported_grant_type")
                Self.expectActualCORS(badGrant, origin: Self.listed, "token 400")

                let revoked = try await client.executeRequest(
                    uri: "/oauth2/revoke", method: .post, headers: form, body: ByteBuffer(string: "token=x&client_id=clanboards-mobile"))
                #expect(revoked.status == .ok)
                Self.expectActualCORS(revoked, origin: Self.listed, "revoke 200")

                var bearer = origin
                bearer[.authorization] = "Bearer \(access)"
                let userinfo = try await client.executeRequest(uri: "/userinfo", method: .get, headers: bearer, body: nil)
                #expect(userinfo.status == .ok)
                Self.expectActualCORS(userinfo, origin: Self.listed, "userinfo 200")

                let challenge = try await client.executeRequest(uri: "/userinfo", method: .get, headers: origin, body: nil)
                #expect(challenge.status == .unauthorized)
                #expect(challenge.headers[.wwwAuthenticate] == "Bearer")
                Self.expectActualCORS(challenge, origin: Self.listed, "userinfo 401")

                var badBearer = origin
                badBearer[.authorization] = "Bearer not-a-token"
                let invalid = try await client.executeRequest(uri: "/account", method: .delete, headers: badBearer, body: nil)
                #expect(invalid.status == .unauthorized)
                #expect(invalid.headers[.wwwAuthenticate] == #"Bearer error="invalid_token""#)
                Self.expectActualCORS(invalid, origin: Self.listed, "account 401")

                let wrongMethod = try await client.executeRequest(uri: "/oauth2/token", method: .get, headers: origin, body: nil)
                #expect(wrongMethod.status == .methodNotAllowed)
                Self.expectActualCORS(wrongMethod, origin: Self.listed, "token 405")
            }
        }
    }

    @Test("a 429 of the rate limit carries CORS, so a browser can read Retry-After")
    func rateLimitedAnswerCarriesCORS() async throws {
        var environment = try Self.environment()
        environment["ISSUER_RATE_LIMIT"] = "1/h burst 1"
        try await withIssuer(environment: environment) { fixture in
            try await buildApplication(fixture.dependencies).test(.live) { client in
                let headers: HTTPFields = [.origin: Self.listed, .contentType: "application/x-www-form-urlencoded"]
                let first = try await client.execute(uri: "/oauth2/revoke", method: .post, headers: headers, body: ByteBuffer(string: "token=x&client_id=clanboards-mobile"))
                #expect(first.status == .ok)
                let limited = try await client.execute(uri: "/oauth2/revoke", method: .post, headers: headers, body: ByteBuffer(string: "token=x&client_id=clanboards-mobile"))
                #expect(limited.status == .tooManyRequests)
                #expect(limited.headers[.retryAfter] != nil)
                #expect(limited.headers[.accessControlAllowOrigin] == Self.listed)
                #expect(limited.headers[.accessControlExposeHeaders] == "WWW-Authenticate, Retry-After, DPoP-Nonce")
                #expect(limited.headers[.vary] == "Origin")
                // A preflight is not a request the allowance counts, nor one it refuses.
                let preflight = try await client.execute(uri: "/oauth2/revoke", method: .options, headers: [
                    .origin: Self.listed, .accessControlRequestMethod: "POST",
                ])
                #expect(preflight.status == .noContent)
            }
        }
    }

    @Test("an origin no client lists gets no CORS field, and its preflight is 405 with Allow", arguments: [
        "https://evil.example.com", "https://APP.example.com", "https://app.example.com:443", "http://app.example.com",
        "https://app.example.com.evil.example", "null",
    ])
    func unlistedOrigin(origin: String) async throws {
        try await withIssuer(environment: try Self.environment()) { fixture in
            try await fixture.test { client in
                let preflight = try await Self.preflight(client, "/oauth2/token", origin: origin)
                #expect(preflight.status == .methodNotAllowed)
                #expect(preflight.headers[.allow] == "POST")
                #expect(preflight.headers[.vary] == "Origin", "the answer depends on Origin")
                Self.expectNoCORS(preflight, "preflight")

                let revoke = try await client.executeRequest(
                    uri: "/oauth2/revoke", method: .post,
                    headers: [.origin: origin, .contentType: "application/x-www-form-urlencoded"],
                    body: ByteBuffer(string: "token=x&client_id=clanboards-mobile"))
                #expect(revoke.status == .ok)
                #expect(revoke.headers[.vary] == "Origin")
                Self.expectNoCORS(revoke, "revoke")

                let userinfo = try await client.executeRequest(uri: "/userinfo", method: .get, headers: [.origin: origin], body: nil)
                #expect(userinfo.status == .unauthorized)
                Self.expectNoCORS(userinfo, "userinfo")
            }
        }
    }

    @Test("without an Origin the answers are the same but for CORS, and still vary on Origin")
    func noOrigin() async throws {
        try await withIssuer(environment: try Self.environment()) { fixture in
            try await fixture.test { client in
                let response = try await client.postForm("/oauth2/revoke", [("token", "x"), ("client_id", "clanboards-mobile")])
                #expect(response.status == .ok)
                #expect(response.headers[.vary] == "Origin")
                Self.expectNoCORS(response, "revoke")
                let preflight = try await Self.preflight(client, "/oauth2/revoke", origin: nil)
                #expect(preflight.status == .methodNotAllowed)
                Self.expectNoCORS(preflight, "preflight without Origin")
                // OPTIONS from a listed origin without Access-Control-Request-Method is no preflight.
                let options = try await client.executeRequest(uri: "/oauth2/revoke", method: .options, headers: [.origin: Self.listed], body: nil)
                #expect(options.status == .methodNotAllowed)
                #expect(options.headers[.accessControlAllowMethods] == nil)
            }
        }
    }

    @Test("other routes get no CORS from a listed origin, and no Vary: Origin", arguments: [
        ("/auth/apple/exchange", HTTPRequest.Method.post),
        ("/oauth2/authorize", .get),
        ("/oauth2/logout", .get),
        ("/auth/apple/notifications", .post),
        ("/oauth2/nothing-here", .post),
        ("/healthz", .get),
    ])
    func otherRoutes(path: String, method: HTTPRequest.Method) async throws {
        try await withIssuer(environment: try Self.environment()) { fixture in
            try await fixture.test { client in
                let response = try await client.executeRequest(uri: path, method: method, headers: [.origin: Self.listed], body: nil)
                Self.expectNoCORS(response, "\(method) \(path)")
                // The pages vary by Accept-Language (docs/reference.md, "The pages people see"), never by Origin.
                #expect(!response.headers[values: .vary].contains { $0.lowercased().contains("origin") }, "\(method) \(path)")
                let preflight = try await Self.preflight(client, path, origin: Self.listed, method: method.rawValue)
                #expect(preflight.status != .noContent, "\(path)")
                Self.expectNoCORS(preflight, "preflight \(path)")
            }
        }
    }

    @Test("with no origin listed by any client, nothing changes: no CORS, no Vary")
    func noOriginsConfigured() async throws {
        try await withIssuer { fixture in
            try await fixture.test { client in
                let response = try await client.executeRequest(
                    uri: "/oauth2/revoke", method: .post, headers: [.origin: Self.listed, .contentType: "application/x-www-form-urlencoded"],
                    body: ByteBuffer(string: "token=x&client_id=clanboards-mobile"))
                #expect(response.status == .ok)
                #expect(response.headers[.vary] == nil)
                Self.expectNoCORS(response, "revoke")
                #expect(try await Self.preflight(client, "/oauth2/token", origin: Self.listed).status == .methodNotAllowed)
            }
        }
    }

    @Test("the JWKS and discovery stay Access-Control-Allow-Origin: * for every origin, on the event loop and the router", arguments: [
        "/oauth2/jwks.json", "/oauth2/jwks.json/", "/.well-known/openid-configuration", "//.well-known/openid-configuration",
    ])
    func publicDocumentsStayOpen(path: String) async throws {
        try await withIssuer(environment: try Self.environment()) { fixture in
            try await buildApplication(fixture.dependencies).test(.live) { client in
                for origin in [Self.listed, "https://evil.example.com"] {
                    let response = try await client.execute(uri: path, method: .get, headers: [.origin: origin])
                    #expect(response.status == .ok)
                    #expect(response.headers[.accessControlAllowOrigin] == "*")
                    #expect(response.headers[.accessControlExposeHeaders] == nil)
                    #expect(response.headers[.accessControlAllowCredentials] == nil)
                }
            }
        }
    }

    @Test("a preflight is counted under its route as OPTIONS 204")
    func preflightCounted() async throws {
        try await withIssuer(environment: try Self.environment()) { fixture in
            try await fixture.test { client in
                #expect(try await Self.preflight(client, "/oauth2/token", origin: Self.listed).status == .noContent)
                let metrics = try await client.get("/metrics")
                #expect(String(buffer: metrics.body).contains(#"issuer_http_requests_total{route="/oauth2/token",method="OPTIONS",status="204"} 1"#))
            }
        }
    }
}
