import Foundation
import HummingbirdTesting
import IssuerCore
@testable import IssuerServer
import Testing
import TestSupport

/// Account deletion tells Facebook (reference: Facebook, "Account deletion"): the app's
/// permissions removed with `DELETE /{user-id}/permissions`, queued in the deletion's transaction
/// and retried with backoff until Facebook accepts it or has nothing left to remove.
@Suite("Facebook: account deletion removes the app's permissions", .serialized, .timeLimit(.minutes(10)))
struct FacebookDeletionNoticeTests {
    static func notice(_ fixture: IssuerTestFixture) async throws -> (attempts: Int, outcome: String?, subject: String?, lastError: String?)? {
        guard let row = try await fixture.pool.query(
            "SELECT attempts, outcome, subject, last_error FROM deletion_notices").single else { return nil }
        return (try row.decode(column: "attempts"), try row.decodeIfPresent(column: "outcome"), try row.decodeIfPresent(column: "subject"),
                try row.decodeIfPresent(column: "last_error"))
    }

    @Test("DELETE /account of a Facebook user: the notice is queued with the deletion and sent; once done the Facebook id is forgotten")
    func deletionRemovesPermissions() async throws {
        try await FacebookExchangeTests.withFacebook { fixture, facebook, client, logs in
            let tokens = try await client.postJSON("/auth/facebook/exchange", ["access_token": facebook.accessToken(for: "fb-gone")]).json
            #expect(try await AccountRequest.send(client, .delete, "/account", tokens).status == .noContent)
            #expect(try await AppleTestRig.eventually { facebook.state.withLock { $0.removedPermissions } == ["fb-gone"] })
            #expect(try await AppleTestRig.eventually { try await Self.notice(fixture)?.outcome == "done" })
            let notice = try #require(try await Self.notice(fixture))
            #expect(notice.subject == nil, "the Facebook id is kept only while the notice is pending")
            #expect(!logs().contains { $0.contains("fb-gone") }, "never Facebook's id in a log line")
        }
    }

    @Test("Facebook failing: retried with backoff until it accepts; an answer that the user is gone ends the retries")
    func retriedThenEnded() async throws {
        try await FacebookExchangeTests.withFacebook { fixture, facebook, client, _ in
            let tokens = try await client.postJSON("/auth/facebook/exchange", ["access_token": facebook.accessToken(for: "fb-retry")]).json
            facebook.state.withLock { $0.mode = .serverError }
            #expect(try await AccountRequest.send(client, .delete, "/account", tokens).status == .noContent)
            #expect(try await AppleTestRig.eventually { try await Self.notice(fixture)?.lastError != nil })
            let failed = try #require(try await Self.notice(fixture))
            #expect(failed.outcome == nil && failed.subject == "fb-retry" && failed.attempts == 1)
            // Not before its backoff: the next try waits on the clock.
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await Self.notice(fixture)?.attempts == 1)
            // Facebook refusing the app token (Graph code 190: our configuration, not the person) is tried again.
            facebook.state.withLock {
                $0.mode = .up
                $0.permissionsError = (400, 190)
            }
            fixture.clock.advance(by: 120)
            // Its outcome recorded (the second failure's reason), so the next try is scheduled from this clock.
            #expect(try await AppleTestRig.eventually { try await Self.notice(fixture)?.lastError?.contains("code 190") == true })
            #expect(try await Self.notice(fixture)?.attempts == 2)
            #expect(try await Self.notice(fixture)?.outcome == nil)
            // Facebook saying the app is already removed (Graph code 100 on a 400): the notice ends.
            facebook.state.withLock { $0.permissionsError = (400, 100) }
            fixture.clock.advance(by: 300)
            #expect(try await AppleTestRig.eventually { try await Self.notice(fixture)?.outcome == "already_gone" })
            #expect(try await Self.notice(fixture)?.attempts == 3)
        }
    }

    @Test("a data deletion request from Facebook queues no notice back to it: its identity is gone first")
    func dataDeletionTellsFacebookNothing() async throws {
        try await FacebookExchangeTests.withFacebook { fixture, facebook, client, _ in
            _ = try await client.postJSON("/auth/facebook/exchange", ["access_token": facebook.accessToken(for: "fb-asked")])
            let answer = try await client.postForm("/auth/facebook/data-deletion", [
                ("signed_request", try FacebookCallbacksTests.signedRequest(userID: "fb-asked", issuedAt: fixture.clock.now)),
            ])
            #expect(answer.status == .ok)
            #expect(try await fixture.count("users") == 0)
            #expect(try await fixture.count("deletion_notices") == 0)
        }
    }

    @Test("unlinking Facebook from a user who keeps Apple removes the app's permissions at Facebook too")
    func unlinkRemovesPermissions() async throws {
        try await FacebookExchangeTests.withFacebook { fixture, facebook, client, _ in
            let user = try await FacebookCallbacksTests.linkedUser(fixture, facebook, client, subject: "fb-unlinked")
            let unlink = try await AccountRequest.send(client, .delete, "/account/identities/facebook", user.apple)
            #expect(unlink.status == .noContent)
            #expect(try await AppleTestRig.eventually { facebook.state.withLock { $0.removedPermissions } == ["fb-unlinked"] })
            #expect(try await AppleTestRig.eventually { try await Self.notice(fixture)?.outcome == "done" })
            #expect(try await fixture.count("users") == 1)
        }
    }

    @Test("a person who comes back with Facebook before the notice went out keeps the new sign-in's permissions: the notice is superseded")
    func comebackSupersedesTheNotice() async throws {
        try await FacebookExchangeTests.withFacebook { fixture, facebook, client, _ in
            let tokens = try await client.postJSON("/auth/facebook/exchange", ["access_token": facebook.accessToken(for: "fb-back")]).json
            facebook.state.withLock { $0.mode = .serverError }
            #expect(try await AccountRequest.send(client, .delete, "/account", tokens).status == .noContent)
            #expect(try await AppleTestRig.eventually { try await Self.notice(fixture)?.lastError != nil })
            facebook.state.withLock { $0.mode = .up }
            #expect(try await client.postJSON("/auth/facebook/exchange", ["access_token": facebook.accessToken(for: "fb-back")]).status == .ok)
            fixture.clock.advance(by: 120)
            #expect(try await AppleTestRig.eventually { try await Self.notice(fixture)?.outcome == "superseded" })
            #expect(try await Self.notice(fixture)?.subject == nil)
            #expect(facebook.state.withLock { $0.removedPermissions }.isEmpty)
        }
    }
}
