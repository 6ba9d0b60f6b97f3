import Foundation
import IssuerCore
@testable import IssuerServer
import Logging
import Testing
import TestSupport

@Suite("Key ring reload (reference: Signing keys)")
struct KeyRingMonitorTests {
    @Test("a rotation is picked up; a corrupted ring is rejected and the previous one kept")
    func reload() throws {
        let directory = try TestKeyRing.make()
        let store = KeyRingDirectory(directory: directory)
        let monitor = KeyRingMonitor(store: store, clock: SystemClock(), logger: Logger(label: "test"))
        #expect(monitor.reload() == nil)
        let before = monitor.current
        let activeBefore = try #require(before.ring.active?.kid)

        let rotation = KeyRotation(store: store, policy: KeyRotationPolicy(longestTokenLifetime: .seconds(3600), reloadInterval: .seconds(5)), clock: SystemClock())
        _ = try rotation.rotate(force: true)
        #expect(monitor.reload() == nil)
        let rotated = monitor.current
        #expect(rotated.ring.active?.kid == before.ring.next?.kid)
        #expect(rotated.publishedKids.contains(activeBefore), "the retired key stays published")
        #expect(rotated.etag != before.etag)

        let stateFile = URL(fileURLWithPath: store.stateFilePath)
        try Data("{ not json".utf8).write(to: stateFile)
        #expect(monitor.reload() != nil)
        #expect(monitor.current.ring.active?.kid == rotated.ring.active?.kid)
        #expect(monitor.current.etag == rotated.etag)
        #expect(monitor.current.jwksBody == rotated.jwksBody)
        try? FileManager.default.removeItem(at: directory.deletingLastPathComponent())
    }

    @Test("a ring that vanishes or reads empty under the server is a failed load: the previous ring stays (reference: Faults and bad input)",
          arguments: ["directory removed", "directory emptied", "ring.json removed", "ring.json without keys"])
    func vanishedRing(how: String) throws {
        let directory = try TestKeyRing.make()
        defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
        let store = KeyRingDirectory(directory: directory)
        let monitor = KeyRingMonitor(store: store, clock: SystemClock(), logger: Logger(label: "test"))
        #expect(monitor.reload() == nil)
        let before = monitor.current
        #expect(before.ring.active != nil)

        switch how {
        case "directory removed": try FileManager.default.removeItem(at: directory)
        case "directory emptied":
            for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
                try FileManager.default.removeItem(at: directory.appendingPathComponent(name))
            }
        case "ring.json removed": try FileManager.default.removeItem(atPath: store.stateFilePath)
        default: try Data(#"{"version": 1, "keys": []}"#.utf8).write(to: URL(fileURLWithPath: store.stateFilePath))
        }
        let error = monitor.reload()
        // Key files left without a ring.json naming them are a broken ring, not a vanished one (reference: Signing keys).
        #expect((error as? KeyRingError) == (how.hasPrefix("directory")
            ? .disappeared(directory: directory.path) : .brokenRing(directory: directory.path, keyFiles: 2)))
        #expect(monitor.current.ring.active?.kid == before.ring.active?.kid)
        #expect(monitor.current.publishedKids == before.publishedKids)
        #expect(monitor.current.jwksBody == before.jwksBody)
        // Still refused on the next tick, not accepted once the "change" has been seen.
        #expect(monitor.reload() != nil)
        #expect(monitor.current.ring.active?.kid == before.ring.active?.kid)
    }

    @Test("before any ring is in use, an empty directory is simply the empty ring")
    func emptyAtStart() throws {
        let directory = TestDirectories.make("no-keys")
        let monitor = KeyRingMonitor(store: KeyRingDirectory(directory: directory), clock: SystemClock(), logger: Logger(label: "test"))
        #expect(monitor.reload() == nil)
        #expect(monitor.current.ring.isEmpty)
    }

    @Test("the server records its token lifetime in the ring before signing with it; the record only grows (reference: Signing keys)")
    func recordsSignerTiming() throws {
        let directory = try TestKeyRing.make()
        defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
        let store = KeyRingDirectory(directory: directory)
        #expect(try store.load().signerTiming == nil)
        let long = SignerTiming(longestTokenLifetime: 86_400, reloadInterval: 30)
        let monitor = KeyRingMonitor(store: store, clock: SystemClock(), logger: Logger(label: "test"), signerTiming: long)
        #expect(monitor.reload() == nil)
        #expect(try store.load().signerTiming == long)
        #expect(monitor.current.ring.signerTiming == long)

        let short = KeyRingMonitor(
            store: store, clock: SystemClock(), logger: Logger(label: "test"),
            signerTiming: SignerTiming(longestTokenLifetime: 600, reloadInterval: 60))
        #expect(short.reload() == nil)
        #expect(try store.load().signerTiming == SignerTiming(longestTokenLifetime: 86_400, reloadInterval: 60))
    }

    @Test("an unchanged ring is not re-parsed, and the JWKS bytes stay identical")
    func unchanged() throws {
        let directory = try TestKeyRing.make()
        let monitor = KeyRingMonitor(store: KeyRingDirectory(directory: directory), clock: SystemClock(), logger: Logger(label: "test"))
        monitor.reload()
        let first = monitor.current
        monitor.reload()
        #expect(monitor.current.etag == first.etag)
        #expect(monitor.current.ring.active?.kid == first.ring.active?.kid)
        try? FileManager.default.removeItem(at: directory.deletingLastPathComponent())
    }

    @Test("If-None-Match matching is weak, list-aware and accepts *", arguments: [
        ("\"abc\"", true), ("W/\"abc\"", true), ("\"x\", \"abc\"", true), ("*", true), ("\"abcd\"", false), ("abc", false),
    ])
    func ifNoneMatch(header: String, matches: Bool) {
        #expect(JWKSEndpoint.matches(header, etag: "\"abc\"") == matches)
    }
}
