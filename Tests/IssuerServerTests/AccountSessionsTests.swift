import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IssuerCore
@testable import IssuerServer
import Testing
import TestSupport

/// The user's signed-in devices (reference: Signed-in devices): the list, one revoked, every
/// other one revoked, each change needing the two proofs of one session.
@Suite("Signed-in devices: /account/sessions")
struct AccountSessionsTests {
    /// A request to `path` with `tokens`' bearer, and their refresh token in a form when `withRefresh`.
    @Test("the list: every live session of the user with the bearer's marked current, its provider and client, no token or address; another user's not")
    func list() async throws {
        try await withIssuer { fixture in
            try await fixture.test { client in
                let phone = try await NativeSignIn.tokens(client, fixture, subject: "devices.one")
                let tablet = try await NativeSignIn.tokens(client, fixture, subject: "devices.one")
                let stranger = try await NativeSignIn.tokens(client, fixture, subject: "devices.two")
                let response = try await AccountRequest.send(client, .get, "/account/sessions", phone, withRefresh: false)
                #expect(response.status == .ok)
                #expect(response.headers[.cacheControl] == "no-store")
                let (phoneSID, tabletSID) = (try AccountRequest.sessionID(fixture, phone), try AccountRequest.sessionID(fixture, tablet))
                #expect(AccountRequest.sessionIDs(response) == [phoneSID: true, tabletSID: false])
                let first = try #require((response.json["sessions"] as? [[String: Any]])?.first)
                #expect(Set(first.keys) == ["sid", "client_id", "provider", "created_at", "last_used_at", "user_agent", "current"])
                #expect(first["provider"] as? String == "apple")
                #expect(first["client_id"] as? String == "clanboards-mobile")
                let text = String(buffer: response.body)
                let strangerSID = try AccountRequest.sessionID(fixture, stranger)
                #expect(!text.contains(phone["refresh_token"] as! String) && !text.contains(strangerSID))
                #expect(try await AccountRequest.send(client, .get, "/account/sessions", nil).status == .unauthorized)
            }
        }
    }

    @Test("revoking one: two proofs; that device's refresh token stops working; another user's sid is 404 and revokes nothing")
    func revokeOne() async throws {
        try await withIssuer { fixture in
            try await fixture.test { client in
                let phone = try await NativeSignIn.tokens(client, fixture, subject: "devices.three")
                let tablet = try await NativeSignIn.tokens(client, fixture, subject: "devices.three")
                let stranger = try await NativeSignIn.tokens(client, fixture, subject: "devices.four")
                let tabletPath = "/account/sessions/\(try AccountRequest.sessionID(fixture, tablet))"
                let accessOnly = try await AccountRequest.send(client, .delete, tabletPath, phone, withRefresh: false)
                #expect(accessOnly.status == .badRequest && accessOnly.json["error"] as? String == "invalid_request")
                let foreign = try await AccountRequest.send(client, .delete, "/account/sessions/\(try AccountRequest.sessionID(fixture, stranger))", phone)
                #expect(foreign.status == .notFound)
                #expect(try await AccountRequest.send(client, .delete, "/account/sessions/not-a-sid", phone).status == .notFound)
                #expect(try await RefreshRequest.post(client, stranger["refresh_token"] as! String).status == .ok, "nothing of the other user revoked")

                #expect(try await AccountRequest.send(client, .delete, tabletPath, phone).status == .noContent)
                let refused = try await RefreshRequest.post(client, tablet["refresh_token"] as! String)
                #expect(refused.json["error"] as? String == "invalid_grant")
                #expect(AccountRequest.sessionIDs(try await AccountRequest.send(client, .get, "/account/sessions", phone, withRefresh: false)).count == 1)
                #expect(try await AccountRequest.send(client, .delete, tabletPath, phone).status == .notFound, "no longer live")
            }
        }
    }

    @Test("sign out everywhere else: every other session revoked, the current one kept; a revoked session's own access token then lists nothing")
    func revokeOthers() async throws {
        try await withIssuer { fixture in
            try await fixture.test { client in
                let phone = try await NativeSignIn.tokens(client, fixture, subject: "devices.five")
                let tablet = try await NativeSignIn.tokens(client, fixture, subject: "devices.five")
                let laptop = try await NativeSignIn.tokens(client, fixture, subject: "devices.five")
                #expect(try await AccountRequest.send(client, .delete, "/account/sessions", phone).status == .noContent)
                #expect(try await RefreshRequest.post(client, phone["refresh_token"] as! String).status == .ok)
                for other in [tablet, laptop] {
                    #expect(try await RefreshRequest.post(client, other["refresh_token"] as! String).json["error"] as? String == "invalid_grant")
                }
                let revokedList = try await AccountRequest.send(client, .get, "/account/sessions", tablet, withRefresh: false)
                #expect(revokedList.status == .unauthorized && revokedList.json["error"] as? String == "invalid_token")
            }
        }
    }

    @Test("a hosted sign-in whose code was never redeemed is no device: not listed, not revocable by its sid; once its code is redeemed it is listed")
    func unredeemedHostedSignIn() async throws {
        try await HostedFlow.withFixture { fixture in
            try await fixture.test { client in
                let subject = "001.devices.hosted"
                let phone = try await NativeSignIn.tokens(client, fixture, subject: subject)
                let phoneSID = try AccountRequest.sessionID(fixture, phone)
                let (state, idToken) = try await HostedFlow.throughApple(client, fixture, subject: subject)
                let back = try await HostedFlow.callback(client, [("state", state), ("id_token", idToken)])
                let code = try #require(HostedFlow.query(back.headers[.location])["code"], "\(back.status)")
                let pending = try await fixture.pool.query(
                    "SELECT id FROM sessions WHERE user_id = (SELECT user_id FROM sessions WHERE id = $1) AND id <> $1", [try #require(UUID(uuidString: phoneSID))]
                ).rows.map { try $0.decode(UUID.self, column: "id").uuidString.lowercased() }
                #expect(pending.count == 1, "the hosted sign-in opened a session for the same user")
                let hostedSID = try #require(pending.first)

                let listed = try await AccountRequest.send(client, .get, "/account/sessions", phone, withRefresh: false)
                #expect(listed.status == .ok)
                #expect(AccountRequest.sessionIDs(listed) == [phoneSID: true], "\(String(buffer: listed.body))")
                #expect(try await AccountRequest.send(client, .delete, "/account/sessions/\(hostedSID)", phone).status == .notFound)

                let tokens = try await client.postForm("/oauth2/token", [
                    ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", HostedFlow.redirectURI),
                    ("client_id", "clanboards-mobile"), ("code_verifier", HostedFlow.verifier),
                ])
                #expect(tokens.status == .ok)
                #expect(try AccountRequest.sessionID(fixture, tokens.json) == hostedSID)
                let after = try await AccountRequest.send(client, .get, "/account/sessions", phone, withRefresh: false)
                #expect(AccountRequest.sessionIDs(after) == [phoneSID: true, hostedSID: false])
            }
        }
    }
}
