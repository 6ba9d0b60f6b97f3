import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IssuerCore
@testable import IssuerServer
import Testing
import TestSupport

/// docs/design.md, "One route table" and docs/reference.md, "Faults and bad input": one route table drives registration, 405/Allow, rate limits and
/// error shapes, and a route is one route however its path is spelled.
@Suite("The route table")
struct RouteTableTests {
    @Test("every route of the table is served at its place, under the issuer's path or at the root")
    func everyRouteServed() async throws {
        let providers = try FakeGoogleServer.providersFile([[
            "id": "google", "kind": "google", "native_audiences": ["web"], "client_id": "web", "client_secret": "s",
        ], ["id": "facebook", "kind": "facebook", "app_id": "1234567890", "app_secret": "s"]])
        defer { TestDirectories.remove(providers) }
        // A logo, so that /assets/{asset} has something to serve.
        let pages = try TestDirectories.created("pages")
        defer { TestDirectories.remove(pages) }
        try #"{"logo": "logo.svg"}"#.write(to: pages.appendingPathComponent("theme.json"), atomically: true, encoding: .utf8)
        try #"<svg xmlns="http://www.w3.org/2000/svg"/>"#.write(to: pages.appendingPathComponent("logo.svg"), atomically: true, encoding: .utf8)
        try await withIssuer(environment: [
            "ISSUER_URL": "http://127.0.0.1:8080/oidc", "ISSUER_PROVIDERS_FILE": providers.path, "ISSUER_PAGES_DIR": pages.path,
        ]) { fixture in
            let asset = try #require(fixture.configuration.pages.logo).assetName
            try await fixture.test { client in
                for route in Route.allCases {
                    // A path parameter names a provider that is configured (Facebook's callbacks, Facebook),
                    // or a logo that is served.
                    let provider = [.providerDeauthorize, .providerDataDeletion].contains(route) ? "facebook" : "google"
                    let path = route.registeredPath(prefix: "/oidc").replacingOccurrences(of: "{provider}", with: provider)
                        .replacingOccurrences(of: "{asset}", with: asset)
                    let response = try await client.executeRequest(
                        uri: path, method: route.methods[0], headers: [.contentType: "application/x-www-form-urlencoded"],
                        body: route.methods[0] == .post ? ByteBuffer(string: "") : nil)
                    #expect(![404, 405].contains(response.status.code), "\(route) at \(path): \(response.status)")
                }
            }
        }
    }

    @Test("a wrong method is 405 with Allow, as RFC 6749 JSON on OAuth routes, however the path is spelled",
          arguments: [
            ("GET", "/oauth2/revoke/", "POST", true),
            ("DELETE", "//oauth2/token", "POST", true),
            ("PUT", "/userinfo/", "GET, POST, HEAD", true),
            ("POST", "/oauth2/jwks.json", "GET, HEAD", true),
            ("POST", "/healthz/", "GET, HEAD", false),
            ("DELETE", "/.well-known/openid-configuration", "GET, HEAD", false),
          ])
    func methodNotAllowed(_ method: String, _ path: String, _ allow: String, _ oauth: Bool) async throws {
        try await withIssuer { fixture in
            try await fixture.test { client in
                let response = try await client.executeRequest(
                    uri: path, method: HTTPRequest.Method(method)!, headers: [:], body: nil)
                #expect(response.status == .methodNotAllowed)
                #expect(response.headers[.allow] == allow)
                if oauth {
                    #expect(response.json["error"] as? String == "invalid_request")
                    #expect(response.headers[.contentType] == "application/json")
                }
            }
        }
    }

    @Test("HEAD is answered wherever GET is; unknown paths under the OAuth paths are RFC 6749 JSON 404s")
    func headAndNotFound() async throws {
        try await withIssuer { fixture in
            try await fixture.test { client in
                let head = try await client.executeRequest(uri: "/oauth2/jwks.json", method: .head, headers: [:], body: nil)
                #expect(head.status == .ok)
                for path in ["/oauth2/nothing", "//auth//apple/nothing", "/account/x"] {
                    let response = try await client.get(path)
                    #expect(response.status == .notFound)
                    #expect(response.json["error"] as? String == "invalid_request", "\(path)")
                }
                let elsewhere = try await client.get("/nothing")
                #expect(elsewhere.status == .notFound)
                #expect(elsewhere.json["error"] == nil)
            }
        }
    }

    @Test("the table's policies name only routes it serves; discovery advertises exactly the served endpoints")
    func tablePolicies() {
        let table = RouteTable(prefix: "/oidc")
        for route in Route.allCases {
            #expect(table.route(matched: RouterPath(route.registeredPath(prefix: "/oidc")).description) == route)
        }
        #expect(Set(Route.allCases.filter(\.isRateLimited)) == [
            .appleExchange, .providerExchange, .token, .revocation, .authorization, .appleCallback, .providerCallback, .logout,
            .account, .accountSessions, .accountSession, .accountIdentities, .accountIdentity,
        ])
        #expect(Route.allCases.filter { $0.placement == .root }.allSatisfy { $0.errorStyle == .plain && !$0.isRateLimited })
    }
}
