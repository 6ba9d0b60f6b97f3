import Foundation
@testable import IssuerCore
import Testing

/// What each of Google's security events changes, decoded by `GoogleRISC` and applied by
/// `SecurityEventPipeline` against a fake store (docs/reference.md, "Google's account-protection
/// events"); the statements run against PostgreSQL in `GoogleRISCEndpointTests`.
@Suite("Google RISC: what each event changes")
struct GoogleRISCApplyTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let userID = UUID()

    /// A verified token carrying one event of `type` about Google's `g.sub`.
    func token(_ type: String, reason: String? = nil, jti: String = UUID().uuidString) throws -> GoogleRISCToken {
        var event: [String: Any] = ["subject": ["subject_type": "iss-sub", "iss": ProviderSettings.Google.issuer, "sub": "g.sub"]]
        if let reason { event["reason"] = reason }
        let payload = try JSONSerialization.data(withJSONObject: [
            "iss": ProviderSettings.Google.riscIssuer, "aud": "google-client", "iat": Int(now.timeIntervalSince1970), "jti": jti,
            "events": ["https://schemas.openid.net/secevent/risc/event-type/\(type)": event],
        ])
        return try GoogleRISCToken(payload: payload, issuer: ProviderSettings.Google.riscIssuer, audiences: ["google-client"], now: now, leeway: 60)
    }

    func changes() -> FakeSecurityEventStore {
        let changes = FakeSecurityEventStore()
        changes.users["google/g.sub"] = userID
        return changes
    }

    func apply(
        _ token: GoogleRISCToken, to changes: FakeSecurityEventStore, providers: [String] = ["google"]
    ) throws -> [SecurityEventPipeline.EventResult]? {
        try SecurityEventPipeline.apply(GoogleRISC.delivery(token, providers: providers), to: changes, now: now)
    }

    @Test("each kind makes its changes to the identity's user", arguments: [
        ("sessions-revoked", nil, ["revoke google sessions-revoked"]),
        ("tokens-revoked", nil, ["revoke google tokens-revoked"]),
        ("account-disabled", "hijacking", ["revoke google account-disabled (hijacking)", "disable google hijacking"]),
        ("account-disabled", "bulk-account", ["disable google bulk-account"]),
        ("account-enabled", nil, ["enable google"]),
        ("account-credential-change-required", nil, ["credential google"]),
    ] as [(String, String?, [String])])
    func eachKind(type: String, reason: String?, expected: [String]) throws {
        let changes = changes()
        let results = try #require(try apply(try token(type, reason: reason), to: changes))
        #expect(results.map(\.applied) == [true] && results.first?.users == [userID])
        #expect(changes.changes == expected)
    }

    @Test("account-purged unlinks the identity, and deletes the user only when it was the last one")
    func purged() throws {
        let lastIdentity = changes()
        #expect(try apply(try token("account-purged"), to: lastIdentity)?.first?.deleted == userID)
        #expect(lastIdentity.changes == ["unlink google", "delete"])

        let linked = changes()
        linked.keepsAnotherIdentity = [userID]
        #expect(try #require(try apply(try token("account-purged"), to: linked)).first?.deleted == nil)
        #expect(linked.changes == ["unlink google"])
    }

    @Test("a jti seen before changes nothing; an unknown identity or a verification event changes nothing")
    func nothingToChange() throws {
        let changes = changes()
        let once = try token("account-disabled", reason: "hijacking", jti: "once")
        _ = try apply(once, to: changes)
        changes.changes = []
        #expect(try apply(once, to: changes) == nil)

        let unknown = FakeSecurityEventStore()
        let results = try #require(try apply(try token("sessions-revoked"), to: unknown))
        #expect(results.map(\.applied) == [false] && results.first?.users == [])
        let verification = try #require(try apply(try token("verification"), to: changes))
        #expect(verification.map(\.applied) == [false])
        #expect(changes.changes.isEmpty && unknown.changes.isEmpty)
    }

    @Test("every provider with the identity is changed")
    func everyProvider() throws {
        let changes = changes()
        let other = UUID()
        changes.users["google-work/g.sub"] = other
        let results = try #require(try apply(try token("account-enabled"), to: changes, providers: ["google", "google-work"]))
        #expect(results.first?.users == [userID, other])
        #expect(changes.changes == ["enable google", "enable google-work"])
    }

    @Test("account-purged deletes an orphaned user as account deletion does, Apple tokens revoked; every jti is recorded as Google's")
    func purgedDeletionAndSender() throws {
        let changes = changes()
        _ = try apply(try token("account-purged", jti: "purged"), to: changes)
        #expect(changes.deletions == ["google account purged, revoke true"])
        #expect(changes.seenIDs == ["google/purged"])
    }
}
