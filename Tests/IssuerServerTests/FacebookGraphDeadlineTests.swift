import Foundation
import HummingbirdTesting
import IssuerCore
@testable import IssuerServer
import Testing
import TestSupport

/// The Graph API's bounds (reference: Facebook): an answer slower than the 5-second deadline or
/// larger than 64 KiB is Facebook's outage, `503 temporarily_unavailable`, nothing stored. Run in
/// scripts/test's serial phase with the other wall-clock deadline suites.
@Suite("Facebook: the Graph API's deadline and answer size", .timeLimit(.minutes(5)))
struct FacebookGraphDeadlineTests {
    @Test("Facebook slower than 5 s, or answering over 64 KiB: 503 temporarily_unavailable, nobody signed in", arguments: ["slow", "huge"])
    func boundedGraph(_ kind: String) async throws {
        try await FacebookExchangeTests.withFacebook { fixture, facebook, client, _ in
            let token = facebook.accessToken(for: "fb-bounded")
            facebook.state.withLock { $0.mode = kind == "slow" ? .slow : .huge }
            let response = try await client.postJSON("/auth/facebook/exchange", ["access_token": token])
            #expect(response.status == .serviceUnavailable, "\(response.json)")
            #expect(response.json["error"] as? String == "temporarily_unavailable")
            // Had the issuer waited for the slow answer, its `debug_token` without a user would be
            // invalid_grant: the 503 is the deadline's.
            #expect(try await fixture.count("users") == 0)
        }
    }
}
