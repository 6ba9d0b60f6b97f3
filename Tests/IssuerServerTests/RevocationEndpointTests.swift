import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IssuerCore
import JOSE
import Testing
import TestSupport

@Suite("POST /oauth2/revoke (RFC 7009)")
struct RevocationEndpointTests {
    @Test("revoking a refresh token ends its session: refresh and access tokens stop working")
    func revokeRefreshToken() async throws {
        try await withIssuer { fixture in
            try await fixture.test { client in
                let tokens = try await NativeSignIn.tokens(client, fixture)
                let refresh = tokens["refresh_token"] as! String
                let access = tokens["access_token"] as! String
                #expect(try await UserInfoRequest.send(client, access).status == .ok)
                let response = try await RevocationRequest.post(client, refresh)
                #expect(response.status == .ok)
                #expect(response.body.readableBytes == 0)
                #expect(try await RefreshRequest.post(client, refresh).json["error"] as? String == "invalid_grant")
                #expect(try await UserInfoRequest.send(client, access).status == .unauthorized)
                #expect(try await RevocationRequest.post(client, refresh).status == .ok, "already revoked: still 200")
            }
        }
    }

    @Test("revoking an access token revokes its session (sid)")
    func revokeAccessToken() async throws {
        try await withIssuer { fixture in
            try await fixture.test { client in
                let tokens = try await NativeSignIn.tokens(client, fixture)
                #expect(try await RevocationRequest.post(client, tokens["access_token"] as? String).status == .ok)
                #expect(try await RefreshRequest.post(client, tokens["refresh_token"] as! String).json["error"] as? String == "invalid_grant")
            }
        }
    }

    @Test("an expired access token answers 200 and revokes nothing: alone, it has power over the session only while valid")
    func expiredAccessTokenRevokesNothing() async throws {
        try await withIssuer { fixture in
            try await fixture.test { client in
                let tokens = try await NativeSignIn.tokens(client, fixture)
                let access = tokens["access_token"] as! String
                fixture.clock.advance(by: TimeInterval(tokens["expires_in"] as! Int) + 1)
                #expect(try await UserInfoRequest.send(client, access).status == .unauthorized, "expired")
                #expect(try await RevocationRequest.post(client, access).status == .ok)
                #expect(try await RefreshRequest.post(client, tokens["refresh_token"] as! String).status == .ok, "the session lives on")
            }
        }
    }

    @Test("unknown, malformed and other clients' tokens answer 200 and change nothing; missing fields are client errors")
    func revokeOddTokens() async throws {
        try await withIssuer(environment: ["ISSUER_CLIENTS_FILE": try IssuerTestFixture.twoClientsFile().path]) { fixture in
            try await fixture.test { client in
                let tokens = try await NativeSignIn.tokens(client, fixture)
                for token in [RefreshToken.generate().value, "garbage", "a.b.c", String(repeating: "x", count: 5000)] {
                    #expect(try await RevocationRequest.post(client, token).status == .ok)
                }
                #expect(try await RevocationRequest.post(client, tokens["refresh_token"] as? String, clientID: "other-app").status == .ok)
                #expect(try await RevocationRequest.post(client, tokens["access_token"] as? String, clientID: "other-app").status == .ok)
                #expect(try await RevocationRequest.post(client, nil).json["error"] as? String == "invalid_request")
                #expect(try await RevocationRequest.post(client, "x", clientID: nil).json["error"] as? String == "invalid_request")
                #expect(try await RevocationRequest.post(client, "x", clientID: "nobody").json["error"] as? String == "invalid_client")
                #expect(try await RefreshRequest.post(client, tokens["refresh_token"] as! String).status == .ok, "nothing was revoked")
            }
            #expect(try await fixture.pool.query("SELECT count(*) AS count FROM sessions WHERE revoked_at IS NOT NULL").single!.decode(Int.self, column: "count") == 0)
        }
    }
}
