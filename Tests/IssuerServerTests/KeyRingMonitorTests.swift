import Foundation
import IssuerCore
@testable import IssuerServer
import Logging
import Testing
import TestSupport

@Suite("Key ring reload (SPEC §5)")
struct KeyRingMonitorTests {
    @Test("a rotation is picked up; a corrupted ring is rejected and the previous one kept")
    func reload() throws {
        let directory = try TestKeyRing.make()
        let store = KeyRingStore(directory: directory)
        let monitor = KeyRingMonitor(store: store, clock: SystemClock(), logger: Logger(label: "test"))
        #expect(monitor.reload() == nil)
        let before = monitor.current
        let activeBefore = try #require(before.ring.active?.kid)

        let rotation = KeyRotation(store: store, policy: KeyRotationPolicy(longestTokenLifetime: 3600, reloadInterval: 5))
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

    @Test("an unchanged ring is not re-parsed, and the JWKS bytes stay identical")
    func unchanged() throws {
        let directory = try TestKeyRing.make()
        let monitor = KeyRingMonitor(store: KeyRingStore(directory: directory), clock: SystemClock(), logger: Logger(label: "test"))
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
        #expect(JWKSEndpoint<IssuerRequestContext>.matches(header, etag: "\"abc\"") == matches)
    }
}
