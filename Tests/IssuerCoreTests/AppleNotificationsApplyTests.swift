import Foundation
@testable import IssuerCore
import Testing

/// What one verified Apple notification changes, against fake changes (docs/reference.md,
/// "Apple notifications"); the statements run against PostgreSQL in `AppleNotificationsTests`.
@Suite("Apple notifications: what each event changes")
struct AppleNotificationsApplyTests {
    /// Records each change; knows one Apple account and whether a `jti` was seen.
    final class FakeChanges: AppleNotificationChanges {
        var seenJTIs: Set<String> = []
        var users: [String: UUID] = [:]
        var changes: [String] = []

        func recordOnce(jti: String, type: String, now: Date) throws -> Bool {
            seenJTIs.insert(jti).inserted
        }

        func userID(provider: String, subject: String) throws -> UUID? {
            provider == "apple" ? users[subject] : nil
        }

        func setEmailForwarding(userID: UUID, enabled: Bool, at time: Date) throws {
            changes.append("forwarding \(enabled) \(time.timeIntervalSince1970)")
        }

        func revokeConsent(userID: UUID, by time: Date, now: Date) throws {
            changes.append("consent \(time.timeIntervalSince1970)")
        }

        func deleteAccount(userID: UUID, now: Date) throws {
            changes.append("delete")
        }
    }

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

    func changes() -> FakeChanges {
        let changes = FakeChanges()
        changes.users["apple.sub"] = userID
        return changes
    }

    @Test("each kind makes its one change to the user with that Apple identity")
    func eachKind() throws {
        for (type, change) in [
            ("email-enabled", "forwarding true 1799999990.0"), ("email-disabled", "forwarding false 1799999990.0"),
            ("consent-revoked", "consent 1799999990.0"), ("account-delete", "delete"),
        ] {
            let changes = changes()
            let (outcome, user) = try AppleNotifications.apply(try event(type), provider: "apple", to: changes, now: now)
            #expect(outcome == .applied && user == userID, "\(type)")
            #expect(changes.changes == [change], "\(type)")
        }
    }

    @Test("a jti seen before changes nothing")
    func duplicate() throws {
        let changes = changes()
        let event = try event("account-delete", jti: "once")
        _ = try AppleNotifications.apply(event, provider: "apple", to: changes, now: now)
        let (outcome, user) = try AppleNotifications.apply(event, provider: "apple", to: changes, now: now)
        #expect(outcome == .duplicate && user == nil)
        #expect(changes.changes == ["delete"])
    }

    @Test("no user with that Apple identity, or a type not acted on: nothing to do")
    func nothingToDo() throws {
        let unknownUser = changes()
        let (noUser, nobody) = try AppleNotifications.apply(try event("account-delete", subject: "other"), provider: "apple", to: unknownUser, now: now)
        #expect(noUser == .nothingToDo && nobody == nil)
        let unknownType = changes()
        let (outcome, user) = try AppleNotifications.apply(try event("something-new"), provider: "apple", to: unknownType, now: now)
        #expect(outcome == .nothingToDo && user == userID)
        #expect(unknownUser.changes.isEmpty && unknownType.changes.isEmpty)
        #expect(unknownType.seenJTIs.count == 1, "its jti is still recorded, so a redelivery is a duplicate")
    }
}
