import Foundation
import IssuerCore
import JOSE
import Synchronization
import Testing
import TestSupport

@Suite struct KeyRotationTests {
    static func rotation(_ directory: URL, _ clock: ManualClock) -> KeyRotation {
        KeyRotation(store: KeyRingDirectory(directory: directory), policy: KeyFixtures.policy, clock: clock)
    }

    @Test func lifecycleFollowsTheSpecTiming() throws {
        try TestDirectories.withTemporary { directory in
            let clock = ManualClock()
            let start = clock.now
            let rotation = Self.rotation(directory, clock)
            let store = rotation.store

            let initialized = try rotation.initialize()
            #expect(initialized.created.count == 2)
            let ring = try store.load()
            let active = try #require(ring.active)
            let next = try #require(ring.next)
            #expect(active.activatedAt == start)
            #expect(next.createdAt == start)
            #expect(Set(ring.jwks(at: start).keys.compactMap(\.kid)) == [active.kid, next.kid])

            // Re-running init changes nothing.
            let again = try rotation.initialize()
            #expect(again.created.isEmpty)
            #expect(again.change == .none)
            #expect(try store.load().keys.map(\.kid) == ring.keys.map(\.kid))

            // One second before the next key has been published for max-age + 60 s: refused, with the time it will be allowed.
            clock.advance(by: 359)
            let refusal = #expect(throws: KeyRotationError.self) { try rotation.rotate() }
            #expect(refusal == .tooEarly(
                nextKid: next.kid, enteredAt: start, allowedAt: start.addingTimeInterval(360), now: start.addingTimeInterval(359)))
            #expect(try store.load().active?.kid == active.kid)

            clock.advance(by: 1)
            let rotated = try rotation.rotate()
            #expect(rotated.forced == nil)
            #expect(rotated.promoted.kid == next.kid)
            #expect(rotated.retired.kid == active.kid)
            let rotatedAt = start.addingTimeInterval(360)
            let publishedUntil = rotatedAt.addingTimeInterval(5 + 3600 + 300 + 60)
            let afterRotation = try store.load()
            #expect(afterRotation.active?.kid == next.kid)
            #expect(afterRotation.active?.activatedAt == rotatedAt)
            #expect(afterRotation.next?.kid == rotated.next.kid)
            #expect(afterRotation.next?.createdAt == rotatedAt)
            #expect(afterRotation.retired.map(\.kid) == [active.kid])
            #expect(afterRotation.retired.first?.retiredAt == rotatedAt)
            #expect(afterRotation.retired.first?.publishedUntil == publishedUntil)
            #expect(afterRotation.jwks(at: rotatedAt).keys.count == 3)

            // Prune leaves the retired key alone until its window has passed.
            clock.set(publishedUntil.addingTimeInterval(-1))
            let early = try rotation.prune()
            #expect(early.removed.isEmpty)
            #expect(early.nextPrunableAt == publishedUntil)
            #expect(try store.load().retired.count == 1)
            #expect(try store.load().jwks(at: clock.now).keys.count == 3)

            clock.set(publishedUntil)
            #expect(try store.load().jwks(at: clock.now).keys.count == 2)
            let pruned = try rotation.prune()
            #expect(pruned.forced == nil)
            #expect(pruned.removed.map(\.kid) == [active.kid])
            #expect(try store.load().retired.isEmpty)
            #expect(!FileManager.default.fileExists(atPath: store.keyFilePath(kid: active.kid)))
            #expect(try rotation.prune().removed.isEmpty)
        }
    }

    /// docs/reference.md, "Signing keys": a CLI whose environment lacks the servers' TTLs (here: the 3600 s default against
    /// servers issuing 24-hour tokens) must not unpublish a key whose tokens may still be valid.
    @Test(arguments: [true, false])
    func pruneHonoursTheServersRecordedTokenLifetime(recordedBeforeRotation: Bool) throws {
        try TestDirectories.withTemporary { directory in
            let clock = ManualClock()
            let rotation = Self.rotation(directory, clock)
            let store = rotation.store
            _ = try rotation.initialize()
            let servers = SignerTiming(longestTokenLifetime: 86_400, reloadInterval: 30)
            if recordedBeforeRotation { _ = try store.recordSignerTiming(servers) }
            clock.advance(by: 360)
            let rotatedAt = clock.now
            let retired = try rotation.rotate().retired
            // A server that loaded the old ring just before the rotation records only now.
            if !recordedBeforeRotation { _ = try store.recordSignerTiming(servers) }
            let needed = rotatedAt.addingTimeInterval(30 + 86_400 + 300 + 60)

            // Long past what the CLI's own policy (5 + 3600 + 360 s) would allow.
            clock.set(rotatedAt.addingTimeInterval(3965 + 60))
            let early = try rotation.prune()
            #expect(early.removed.isEmpty)
            #expect(early.nextPrunableAt == needed)
            #expect(try store.load().retired.first?.publishedUntil == needed)
            #expect(try store.load().jwks(at: clock.now).keys.compactMap(\.kid).contains(retired.kid), "still in the JWKS")

            clock.set(needed)
            #expect(try rotation.prune().removed.map(\.kid) == [retired.kid])
            #expect(try store.load().signerTiming == servers, "rotate and prune keep the record")
        }
    }

    @Test func pruneAlsoHonoursItsOwnLongerPolicy() throws {
        try TestDirectories.withTemporary { directory in
            let clock = ManualClock()
            let rotation = Self.rotation(directory, clock)
            _ = try rotation.initialize()
            clock.advance(by: 360)
            let rotatedAt = clock.now
            let retired = try rotation.rotate().retired
            // The servers could not record (a read-only volume); the CLI knows their 24-hour TTL.
            let informed = KeyRotation(
                store: rotation.store, policy: KeyRotationPolicy(longestTokenLifetime: .seconds(86_400), reloadInterval: .seconds(5)), clock: clock)
            clock.set(rotatedAt.addingTimeInterval(3965))
            #expect(try informed.prune().removed.isEmpty)
            clock.set(rotatedAt.addingTimeInterval(5 + 86_400 + 360))
            #expect(try informed.prune().removed.map(\.kid) == [retired.kid])
        }
    }

    @Test func forcedRotationAndPruneWarnAboutWhatTheyRisk() throws {
        try TestDirectories.withTemporary { directory in
            let clock = ManualClock()
            let rotation = Self.rotation(directory, clock)
            _ = try rotation.initialize()
            let before = try rotation.store.load()
            clock.advance(by: 10)

            let rotated = try rotation.rotate(force: true)
            #expect(rotated.promoted.kid == before.next?.kid)
            let published = try #require(before.next).createdAt
            #expect(rotated.forced == .promotedEarly(
                kid: rotated.promoted.kid, publishedAt: published, promotableAt: published.addingTimeInterval(360), promotionDelay: .seconds(360)))

            let pruned = try rotation.prune(force: true)
            #expect(pruned.removed.map(\.kid) == [before.active?.kid])
            #expect(pruned.forced?.kids == [before.active?.kid].compactMap { $0 })
            #expect(try rotation.store.load().retired.isEmpty)

            // Forcing when the timing already allows it is not a risk, so no warning.
            clock.advance(by: 360)
            #expect(try rotation.rotate(force: true).forced == nil)
        }
    }

    @Test func ringWithoutNextKeyIsRepairedByInitOrForced() throws {
        try TestDirectories.withTemporary { directory in
            let clock = ManualClock()
            let rotation = Self.rotation(directory, clock)
            _ = try rotation.initialize()
            let active = try #require(try rotation.store.load().active)
            try rotation.store.modify { _ in (try KeyRing(keys: [active]), ()) }

            #expect(throws: KeyRotationError.noNextKey(activeKid: active.kid)) { try rotation.rotate() }
            let repaired = try rotation.initialize()
            #expect(repaired.created.count == 1)
            #expect(try rotation.store.load().next?.kid == repaired.created.first?.kid)

            try rotation.store.modify { _ in (try KeyRing(keys: [active]), ()) }
            let forced = try rotation.rotate(force: true)
            #expect(forced.promoted.kid != active.kid)
            #expect(forced.forced == .promotedUnpublished(kid: forced.promoted.kid, promotionDelay: .seconds(360)))
            #expect(try rotation.store.load().retired.map(\.kid) == [active.kid])
        }
    }

    @Test func emptyRingCannotRotate() throws {
        try TestDirectories.withTemporary { directory throws in
            let rotation = Self.rotation(directory, ManualClock())
            #expect(throws: KeyRotationError.emptyRing(directory: directory.path)) { try rotation.rotate() }
            #expect(throws: KeyRotationError.emptyRing(directory: directory.path)) { try rotation.rotateIfOlderThan(.seconds(1)) }
            #expect(try rotation.prune().removed.isEmpty)
        }
    }

    @Test func rotateIfOlderThanOnlyRotatesWhenDueAndAllowed() throws {
        try TestDirectories.withTemporary { directory in
            let clock = ManualClock()
            let rotation = Self.rotation(directory, clock)
            _ = try rotation.initialize()
            let initial = try rotation.store.load()
            let thirtyDays = try #require(Duration(compactNotation: "30d"))

            clock.advance(by: 30 * 86_400 - 1)
            guard case .skipped(let reason) = try rotation.rotateIfOlderThan(thirtyDays) else {
                Issue.record("rotated a key younger than 30 days")
                return
            }
            let activatedAt = try #require(initial.active?.activatedAt)
            #expect(reason == .notDue(
                activeKid: initial.active!.kid, activatedAt: activatedAt, minimumAge: thirtyDays,
                dueAt: activatedAt.addingTimeInterval(30 * 86_400), now: clock.now))
            #expect(try rotation.store.load().active?.kid == initial.active?.kid)

            clock.advance(by: 1)
            guard case .rotated(let rotated) = try rotation.rotateIfOlderThan(thirtyDays) else {
                Issue.record("did not rotate a 30-day-old key")
                return
            }
            #expect(rotated.promoted.kid == initial.next?.kid)

            // Due (the new active key is a minute old) but the new next key is too: skipped, not refused.
            clock.advance(by: 60)
            guard case .skipped(let tooEarly) = try rotation.rotateIfOlderThan(.seconds(60)) else {
                Issue.record("promoted a next key published 60 s ago")
                return
            }
            guard case .tooEarly(.tooEarly) = tooEarly else {
                Issue.record("not refused as too early: \(tooEarly)")
                return
            }
            #expect(try rotation.store.load().active?.kid == rotated.promoted.kid)

            // Due with no next key: a next key is prepared for the following run.
            let active = try #require(try rotation.store.load().active)
            try rotation.store.modify { ring in (try KeyRing(keys: ring.keys.filter { $0.state != .next }), ()) }
            guard case .skipped(let prepared) = try rotation.rotateIfOlderThan(.seconds(60)) else {
                Issue.record("rotated without a next key")
                return
            }
            guard case .addedNextKey(activeKid: active.kid, _, _) = prepared else {
                Issue.record("no next key prepared: \(prepared)")
                return
            }
            #expect(try rotation.store.load().next != nil)
            #expect(try rotation.store.load().active?.kid == active.kid)
        }
    }

    @Test func concurrentRotationsLetExactlyOneWinPerWindow() throws {
        try TestDirectories.withTemporary { directory in
            let clock = ManualClock()
            _ = try Self.rotation(directory, clock).initialize()
            for window in 0..<3 {
                clock.advance(by: 360)
                let before = try KeyRingDirectory(directory: directory).load()
                let outcomes = Mutex<[Result<String, any Error>]>([])
                // Separate KeyRotation values, as two processes would have; each opens its own lock file descriptor.
                DispatchQueue.concurrentPerform(iterations: 2) { _ in
                    let result = Result { try Self.rotation(directory, clock).rotate().promoted.kid }
                    outcomes.withLock { $0.append(result) }
                }
                let results = outcomes.withLock { $0 }
                let winners = results.compactMap { try? $0.get() }
                #expect(winners == [before.next?.kid], "window \(window)")
                let losers = results.compactMap { result -> (any Error)? in
                    if case .failure(let error) = result { return error }
                    return nil
                }
                #expect(losers.count == 1)
                if case .tooEarly? = losers.first as? KeyRotationError {} else {
                    Issue.record("loser failed with \(String(describing: losers.first)), expected tooEarly")
                }
                let after = try KeyRingDirectory(directory: directory).load()
                #expect(after.active?.kid == before.next?.kid)
                #expect(after.retired.count == window + 1)
            }
        }
    }
}
