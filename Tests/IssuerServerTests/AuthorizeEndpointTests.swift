import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IssuerCore
@testable import IssuerServer
import JOSE
import JWTKit
import Synchronization
import Testing
import TestSupport

/// GET /oauth2/authorize, the hosted flow's first step (docs/reference.md, "Hosted sign-in").
@Suite("/oauth2/authorize (reference: Hosted sign-in)")
struct AuthorizeEndpointTests {
    @Test("authorize errors: a page before the redirect URI is trusted, a redirect with state after", arguments: [
        (["client_id": nil], nil),
        (["client_id": "nobody"], nil),
        (["redirect_uri": nil], nil),
        (["redirect_uri": "clanboards://elsewhere"], nil),
        (["redirect_uri": "clanboards://signout"], nil),
        (["response_type": nil], "invalid_request"),
        (["response_type": "token"], "unsupported_response_type"),
        (["code_challenge": nil], "invalid_request"),
        (["code_challenge_method": "plain"], "invalid_request"),
        (["code_challenge_method": nil], "invalid_request"),
        (["code_challenge": "short"], "invalid_request"),
        (["scope": "openid admin"], "invalid_scope"),
    ] as [([String: String?], String?)])
    func authorizeRefusals(_ overrides: [String: String?], _ error: String?) async throws {
        try await HostedFlow.withFixture { fixture in
            try await fixture.test { client in
                let response = try await client.get(HostedFlow.authorizeQuery(overrides))
                if let error {
                    #expect(response.status == .found)
                    let location = try #require(response.headers[.location])
                    #expect(location.hasPrefix(HostedFlow.redirectURI + "?"))
                    #expect(HostedFlow.query(location)["error"] == error)
                    #expect(HostedFlow.query(location)["state"] == "client-state")
                } else {
                    #expect(response.status == .badRequest)
                    #expect(response.headers[.location] == nil, "never redirected to an untrusted URI")
                    #expect(response.headers[.contentType] == "text/html; charset=utf-8")
                    #expect(response.headers[.contentSecurityPolicy] == PagesTests.builtInPolicy)
                    #expect(response.headers[HTTPField.Name("X-Frame-Options")!] == "DENY")
                    #expect(response.headers[.cacheControl] == "no-store")
                }
            }
        }
    }

    @Test("without ISSUER_APPLE_SERVICES_ID both steps answer a 503 page")
    func notConfigured() async throws {
        try await withIssuer { fixture in
            try await fixture.test { client in
                let authorize = try await client.get(HostedFlow.authorizeQuery())
                #expect(authorize.status == .serviceUnavailable)
                #expect(String(buffer: authorize.body).contains("ISSUER_APPLE_SERVICES_ID"))
                let callback = try await HostedFlow.callback(client, [("state", "x")])
                #expect(callback.status == .serviceUnavailable)
            }
        }
    }
}
