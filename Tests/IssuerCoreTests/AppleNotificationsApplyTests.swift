import Foundation
@testable import IssuerCore
import Testing

/// What one verified Apple notification changes, its events decoded by `AppleNotifications` and
/// applied by `SecurityEventPipeline` against a fake store (docs/reference.md, "Apple
/// notifications"); the statements run against PostgreSQL in `AppleNotificationsTests`.
@Suite("Apple notifications: what each event changes")
struct AppleNotificationsApplyTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let userID = UUID()

    func event(_ type: String, subject: String = "apple.sub", jti: String = UUID().uuidString) throws -> AppleNotificationEvent {
        let events = #"{"type":"\#(type)","sub":"\#(subject)","event_time":1799999990000}"#
        let payload = try JSONSerialization.data(withJSONObject: [
            "iss": "https://appleid.apple.com", "aud": "com.example.app", "iat": 1_800_000_000, "jti": jti, "events": events,
        ])
        return try AppleNotificationEvent(
            payload: payload, issuer: "https://appleid.apple.com", audiences: ["com.example.app"], now: now, leeway: 60)
    }

    func changes() -> FakeSecurityEventStore {
        let changes = FakeSecurityEventStore()
        changes.users["apple/apple.sub"] = userID
        return changes
    }

    /// The event decoded and applied, answered as Apple's notifications answer.
    func apply(_ event: AppleNotificationEvent, provider: String, to changes: FakeSecurityEventStore) throws -> (AppleNotifications.Outcome, UUID?) {
        let results = try SecurityEventPipeline.apply(AppleNotifications.delivery(event, provider: provider), to: changes, now: now)
        return (AppleNotifications.Outcome(results), results?.first?.users.first)
    }

    @Test("each kind makes its changes to the user with that Apple identity")
    func eachKind() throws {
        for (type, change) in [
            ("email-enabled", ["forwarding true 1799999990.0"]), ("email-disabled", ["forwarding false 1799999990.0"]),
            ("consent-revoked", ["revoke apple consent revoked", "drop grants 1799999990.0"]), ("account-delete", ["delete"]),
        ] {
            let changes = changes()
            let (outcome, user) = try apply(try event(type), provider: "apple", to: changes)
            #expect(outcome == .applied && user == userID, "\(type)")
            #expect(changes.changes == change, "\(type)")
        }
    }

    @Test("a jti seen before changes nothing")
    func duplicate() throws {
        let changes = changes()
        let event = try event("account-delete", jti: "once")
        _ = try apply(event, provider: "apple", to: changes)
        let (outcome, user) = try apply(event, provider: "apple", to: changes)
        #expect(outcome == .duplicate && user == nil)
        #expect(changes.changes == ["delete"])
    }

    @Test("no user with that Apple identity, or a type not acted on: nothing to do")
    func nothingToDo() throws {
        let unknownUser = changes()
        let (noUser, nobody) = try apply(try event("account-delete", subject: "other"), provider: "apple", to: unknownUser)
        #expect(noUser == .nothingToDo && nobody == nil)
        let unknownType = changes()
        let (outcome, user) = try apply(try event("something-new"), provider: "apple", to: unknownType)
        #expect(outcome == .nothingToDo && user == userID)
        #expect(unknownUser.changes.isEmpty && unknownType.changes.isEmpty)
        #expect(unknownType.seenIDs.count == 1, "its jti is still recorded, so a redelivery is a duplicate")
    }

    @Test("account-delete deletes the account sending nothing to Apple; every jti is recorded as Apple's")
    func deletionAndSender() throws {
        let changes = changes()
        _ = try apply(try event("account-delete", jti: "gone"), provider: "apple", to: changes)
        #expect(changes.deletions == ["apple account deleted, revoke false"])
        #expect(changes.seenIDs == ["apple/gone"])
    }
}
