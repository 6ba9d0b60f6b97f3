import Foundation
import IssuerCore
@testable import issuer
import Testing
import TestSupport

/// The English the `issuer keys` commands print (docs/reference.md, "Admin CLI"), rendered here from IssuerCore's typed
/// outcomes; the timing itself is tested in IssuerCoreTests' KeyRotationTests.
@Suite struct KeyMessagesTests {
    /// Runs `body` on a freshly initialized ring in a scratch directory, with the docs/reference.md, "Configuration" default
    /// timing and a clock that only moves when told to.
    static func withInitializedRing(_ body: (KeyRotation, ManualClock, KeyInitialization) throws -> Void) throws {
        try TestDirectories.withTemporary { directory in
            let clock = ManualClock()
            let rotation = KeyRotation(
                store: KeyRingDirectory(directory: directory),
                policy: KeyRotationPolicy(longestTokenLifetime: .seconds(3600), reloadInterval: .seconds(5)), clock: clock)
            try body(rotation, clock, try rotation.initialize())
        }
    }

    @Test func initRotateAndPruneSayWhatTheyDidAndWhen() throws {
        try Self.withInitializedRing { rotation, clock, initialized in
            let start = clock.now
            #expect(initialized.message.hasPrefix("created active key \(try #require(initialized.ring.active).kid)"))
            #expect(try rotation.initialize().message.contains("already initialized"))

            clock.advance(by: 359)
            let refusal = #expect(throws: KeyRotationError.self) { try rotation.rotate() }
            #expect(refusal?.message.contains(start.addingTimeInterval(360).ISO8601Format()) == true)

            clock.advance(by: 1)
            let rotated = try rotation.rotate()
            #expect(rotated.warning == nil)
            let publishedUntil = clock.now.addingTimeInterval(5 + 3600 + 300 + 60)
            #expect(rotated.message.contains("published until \(publishedUntil.ISO8601Format())"))

            clock.set(publishedUntil.addingTimeInterval(-1))
            #expect(try rotation.prune().message.contains(publishedUntil.ISO8601Format()))
            clock.set(publishedUntil)
            let pruned = try rotation.prune()
            #expect(pruned.warning == nil)
            #expect(pruned.message == "pruned 1 retired key(s): \(rotated.retired.kid)")
        }
    }

    @Test func forcedOperationsWarnWhatTheyBreak() throws {
        try Self.withInitializedRing { rotation, clock, _ in
            clock.advance(by: 10)
            let warning = try #require(try rotation.rotate(force: true).warning)
            #expect(warning.contains("verifiers that have not yet fetched the new key will reject tokens signed with it"))
            #expect(try #require(try rotation.prune(force: true).warning).contains("will stop verifying"))

            let active = try #require(try rotation.store.load().active)
            try rotation.store.modify { _ in (try KeyRing(keys: [active]), ()) }
            #expect(try #require(try rotation.rotate(force: true).warning).contains("never published"))
        }
    }

    @Test func cronRotationSaysWhyItSkipped() throws {
        try Self.withInitializedRing { rotation, clock, initialized in
            let initial = initialized.ring
            let thirtyDays = try #require(Duration(compactNotation: "30d"))

            clock.advance(by: 30 * 86_400 - 1)
            #expect(try rotation.rotateIfOlderThan(thirtyDays).message.contains(initial.active!.kid))
            clock.advance(by: 1)
            #expect(try rotation.rotateIfOlderThan(thirtyDays).message.hasPrefix("rotated: \(initial.next!.kid) is now active"))

            clock.advance(by: 60)
            #expect(try rotation.rotateIfOlderThan(.seconds(60)).message.contains("may be promoted from"))

            try rotation.store.modify { ring in (try KeyRing(keys: ring.keys.filter { $0.state != .next }), ()) }
            #expect(try rotation.rotateIfOlderThan(.seconds(60)).message.contains("created next key"))
        }
    }
}
