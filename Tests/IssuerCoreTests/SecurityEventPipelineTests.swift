import Foundation
@testable import IssuerCore
import Testing
import TestSupport

/// What `SecurityEventPipeline` does with any decoder's events, whatever the provider
/// (docs/design.md, "Security events"), against a fake store; the providers here are made up.
@Suite("Security event pipeline")
struct SecurityEventPipelineTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let alice = UUID()
    let bob = UUID()

    func store() -> FakeSecurityEventStore {
        let store = FakeSecurityEventStore()
        store.users = ["one/a": alice, "two/a": bob]
        return store
    }

    func delivery(_ events: [SecurityEvent], id: String = UUID().uuidString, providers: [String] = ["one"]) -> SecurityEventPipeline.Delivery {
        SecurityEventPipeline.Delivery(sender: "sender", id: id, providers: providers, events: events)
    }

    @Test("each effect is applied in order to the identity of each provider that has it; a provider without it is passed over")
    func effectsInOrder() throws {
        let store = store()
        let event = SecurityEvent(name: "e", subject: "a", effects: [
            .sessionsRevoked(begunBy: now, reason: "why"), .heldGrantsDropped(keptBy: now), .signInDisabled(reason: nil, at: now),
            .signInEnabled(at: now), .recorded(.emailForwarding(enabled: true), at: now), .recorded(.credentialChangeRequired, at: now),
        ])
        let results = try #require(try SecurityEventPipeline.apply(delivery([event], providers: ["one", "none", "two"]), to: store, now: now))
        #expect(results == [SecurityEventPipeline.EventResult(applied: true, users: [alice, bob])])
        let once = ["revoke why", "drop grants 1800000000.0", "disable one -", "enable one", "forwarding true 1800000000.0", "credential one"]
        #expect(store.changes == once + once.map { $0.replacingOccurrences(of: " one", with: " two") })
    }

    @Test("an id recorded before applies nothing: nil; ids are kept per sender")
    func once() throws {
        let store = store()
        let event = SecurityEvent(name: "e", subject: "a", effects: [.signInEnabled(at: now)])
        #expect(try SecurityEventPipeline.apply(delivery([event], id: "x"), to: store, now: now) != nil)
        #expect(try SecurityEventPipeline.apply(delivery([event], id: "x"), to: store, now: now) == nil)
        #expect(store.changes == ["enable one"])
        #expect(store.seenIDs == ["sender/x"])
    }

    @Test("an event without a subject, without effects, or about an identity nobody has changes nothing; the user is still said")
    func nothingToChange() throws {
        let store = store()
        let results = try #require(try SecurityEventPipeline.apply(delivery([
            SecurityEvent(name: "test", subject: nil, effects: [.signInEnabled(at: now)]),
            SecurityEvent(name: "other", subject: "a", effects: []),
            SecurityEvent(name: "e", subject: "nobody", effects: [.signInEnabled(at: now)]),
        ]), to: store, now: now))
        #expect(results == [.init(), .init(applied: false, users: [alice]), .init()])
        #expect(store.changes.isEmpty)
    }

    @Test("a removed identity deletes its user only when it was the last; an account deletion says whether to revoke held tokens")
    func deletions() throws {
        let last = store()
        let removed = SecurityEvent(name: "gone", subject: "a", effects: [.identityRemoved(orphanDeletedFor: .googleAccountPurged)])
        #expect(try SecurityEventPipeline.apply(delivery([removed]), to: last, now: now)?.first?.deleted == alice)
        #expect(last.changes == ["unlink one", "delete"] && last.deletions == ["google account purged, revoke true"])

        let linked = store()
        linked.keepsAnotherIdentity = [alice]
        #expect(try SecurityEventPipeline.apply(delivery([removed]), to: linked, now: now)?.first?.deleted == nil)
        #expect(linked.changes == ["unlink one"])

        let deleted = store()
        let event = SecurityEvent(name: "deleted", subject: "a", effects: [.accountDeleted(.appleAccountDeleted, revokeHeldTokens: false)])
        #expect(try SecurityEventPipeline.apply(delivery([event]), to: deleted, now: now)?.first?.deleted == alice)
        #expect(deleted.deletions == ["apple account deleted, revoke false"])
    }

    @Test("each deletion is counted once with its reason after the commit; a redelivery counts nothing")
    func deletionCounted() async throws {
        let events = RecordingAccountEvents()
        let pipeline = SecurityEventPipeline(store: store(), clock: ManualClock(now), events: events)
        let event = SecurityEvent(name: "deleted", subject: "a", effects: [.accountDeleted(.operatorRequest, revokeHeldTokens: true)])
        let first = try await pipeline.apply(delivery([event], id: "d"))
        #expect(first?.first?.deleted == alice)
        #expect(try await pipeline.apply(delivery([event], id: "d")) == nil)
        #expect(events.events == ["account_deleted:operator request"])
    }
}
