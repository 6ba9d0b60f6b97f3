import Foundation
import IssuerCore
import JOSE
import Synchronization
import Testing
import TestSupport

@Suite struct KeyRingDirectoryTests {
    /// A directory holding an initialized ring, and the ring.
    static func initialized(_ directory: URL, clock: ManualClock = ManualClock()) throws -> KeyRing {
        _ = try KeyRotation(store: KeyRingDirectory(directory: directory), policy: KeyFixtures.policy, clock: clock).initialize()
        return try KeyRingDirectory(directory: directory).load()
    }

    @Test func emptyOrMissingDirectoryIsTheEmptyRing() throws {
        try TestDirectories.withTemporary { directory in
            #expect(try KeyRingDirectory(directory: directory).load().isEmpty)
            #expect(try KeyRingDirectory(directory: directory.appendingPathComponent("absent")).load().isEmpty)
            try Data("# The development key ring\n".utf8).write(to: directory.appendingPathComponent("README.md"))
            #expect(try KeyRingDirectory(directory: directory).load().isEmpty)
        }
    }

    @Test func writesPrivateKeysAs0600PKCS8AndIgnoresTheReadme() throws {
        try TestDirectories.withTemporary { directory in
            try Data("# The development key ring\n".utf8).write(to: directory.appendingPathComponent("README.md"))
            let ring = try Self.initialized(directory)
            let store = KeyRingDirectory(directory: directory)
            #expect(ring.keys.count == 2)
            for key in ring.keys {
                let path = store.keyFilePath(kid: key.kid)
                let attributes = try FileManager.default.attributesOfItem(atPath: path)
                #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
                let pem = try String(contentsOfFile: path, encoding: .utf8)
                #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"))
                // The kid is the RFC 7638 thumbprint of the file's key, computed by JOSE independently of the store.
                #expect(try RSAPrivateKey(pemPKCS8: pem).publicKey.thumbprint == key.kid)
            }
            let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            #expect(Set(names) == Set(ring.keys.map { "\($0.kid).pem" } + ["ring.json", "README.md", ".ring.lock"]))
            #expect(try store.load().keys.map(\.kid) == ring.keys.map(\.kid))
        }
    }

    @Test func modifyRemovesTemporaryFilesOfACrashedWriter() throws {
        try TestDirectories.withTemporary { directory in
            _ = try Self.initialized(directory)
            let leftover = directory.appendingPathComponent("ring.json.tmp-deadbeef")
            try Data("{".utf8).write(to: leftover)
            #expect(try KeyRingDirectory(directory: directory).load().keys.count == 2)
            _ = try KeyRotation(store: KeyRingDirectory(directory: directory), policy: KeyFixtures.policy, clock: ManualClock()).prune()
            #expect(!FileManager.default.fileExists(atPath: leftover.path))
        }
    }

    @Test func corruptedStateFileIsRejected() throws {
        try TestDirectories.withTemporary { directory in
            _ = try Self.initialized(directory)
            let store = KeyRingDirectory(directory: directory)
            try Data("{\"version\": 1, \"keys\": [".utf8).write(to: directory.appendingPathComponent("ring.json"))
            let error = #expect(throws: KeyRingError.self) { try store.load() }
            guard case .malformedStateFile(let path, _)? = error else {
                Issue.record("expected malformedStateFile, got \(String(describing: error))")
                return
            }
            #expect(path == store.stateFilePath)
        }
    }

    @Test func stateFileMissingAFieldNamesIt() throws {
        try TestDirectories.withTemporary { directory in
            _ = try Self.initialized(directory)
            var state = try KeyFixtures.stateJSON(in: directory)
            var keys = try #require(state["keys"] as? [[String: Any]])
            keys[0].removeValue(forKey: "createdAt")
            state["keys"] = keys
            try KeyFixtures.writeStateJSON(state, in: directory)
            let error = #expect(throws: KeyRingError.self) { try KeyRingDirectory(directory: directory).load() }
            #expect(error?.description.contains("createdAt") == true)
        }
    }

    @Test func unknownVersionIsRejected() throws {
        try TestDirectories.withTemporary { directory in
            _ = try Self.initialized(directory)
            var state = try KeyFixtures.stateJSON(in: directory)
            state["version"] = 2
            try KeyFixtures.writeStateJSON(state, in: directory)
            let store = KeyRingDirectory(directory: directory)
            #expect(throws: KeyRingError.unsupportedStateVersion(path: store.stateFilePath, version: 2)) { try store.load() }
        }
    }

    @Test func missingKeyFileIsRejected() throws {
        try TestDirectories.withTemporary { directory in
            let ring = try Self.initialized(directory)
            let store = KeyRingDirectory(directory: directory)
            let next = try #require(ring.next)
            try FileManager.default.removeItem(atPath: store.keyFilePath(kid: next.kid))
            #expect(throws: KeyRingError.keyFileMissing(kid: next.kid, path: store.keyFilePath(kid: next.kid))) { try store.load() }
        }
    }

    /// docs/reference.md, "Signing keys": key files whose `ring.json` was lost are a broken ring, not an empty one, and
    /// `keys init` makes no second ring over them.
    @Test(arguments: ["ring.json removed", "ring.json naming no key"])
    func keyFilesWithoutTheirStateFileAreABrokenRing(how: String) throws {
        try TestDirectories.withTemporary { directory in
            _ = try Self.initialized(directory)
            let store = KeyRingDirectory(directory: directory)
            if how == "ring.json removed" {
                try FileManager.default.removeItem(atPath: store.stateFilePath)
            } else {
                try KeyFixtures.writeStateJSON(["version": 1, "keys": [[String: Any]]()], in: directory)
            }
            let before = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
            #expect(before.filter { $0.hasSuffix(".pem") }.count == 2)

            #expect(throws: KeyRingError.brokenRing(directory: directory.path, keyFiles: 2)) { try store.load() }
            let refused = #expect(throws: KeyRingError.self) {
                try KeyRotation(store: store, policy: KeyFixtures.policy, clock: ManualClock()).initialize()
            }
            #expect(refused == .brokenRing(directory: directory.path, keyFiles: 2))
            #expect(refused?.description.hasPrefix("broken key ring: ") == true, "named, never \"empty\"")
            #expect(refused?.description.contains("restore ring.json") == true)
            let after = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
            #expect(after.filter { $0 != ".ring.lock" } == before.filter { $0 != ".ring.lock" }, "no key and no ring.json written")
        }
    }

    @Test func keyFileHoldingAnotherKeyIsRejected() throws {
        try TestDirectories.withTemporary { directory in
            let ring = try Self.initialized(directory)
            let store = KeyRingDirectory(directory: directory)
            let active = try #require(ring.active)
            try TestRSAKeys.a.pemPKCS8().write(toFile: store.keyFilePath(kid: active.kid), atomically: true, encoding: .utf8)
            #expect(throws: KeyRingError.kidMismatch(
                kid: active.kid, thumbprint: TestRSAKeys.a.publicKey.thumbprint, path: store.keyFilePath(kid: active.kid)
            )) { try store.load() }
        }
    }

    @Test func keyUnder2048BitsIsRejected() throws {
        try TestDirectories.withTemporary { directory in
            let ring = try Self.initialized(directory)
            let store = KeyRingDirectory(directory: directory)
            let active = try #require(ring.active)
            let small = try CommandLineTool.run(["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024"])
            try small.write(to: URL(fileURLWithPath: store.keyFilePath(kid: active.kid)))
            #expect(throws: KeyRingError.invalidKeyFile(kid: active.kid, path: store.keyFilePath(kid: active.kid))) { try store.load() }
        }
    }

    @Test func twoActiveKeysAreRejected() throws {
        try TestDirectories.withTemporary { directory in
            let ring = try Self.initialized(directory)
            var state = try KeyFixtures.stateJSON(in: directory)
            let keys = try #require(state["keys"] as? [[String: Any]])
            state["keys"] = keys.map { entry in
                var entry = entry
                entry["state"] = "active"
                entry["activatedAt"] = entry["createdAt"]
                return entry
            }
            try KeyFixtures.writeStateJSON(state, in: directory)
            let error = #expect(throws: KeyRingError.self) { try KeyRingDirectory(directory: directory).load() }
            #expect(error == .multipleActiveKeys(ring.keys.map(\.kid)))
        }
    }

    @Test func ringWithoutActiveKeyIsRejected() throws {
        try TestDirectories.withTemporary { directory in
            _ = try Self.initialized(directory)
            var state = try KeyFixtures.stateJSON(in: directory)
            let keys = try #require(state["keys"] as? [[String: Any]])
            state["keys"] = keys.filter { $0["state"] as? String == "next" }
            try KeyFixtures.writeStateJSON(state, in: directory)
            #expect(throws: KeyRingError.noActiveKey) { try KeyRingDirectory(directory: directory).load() }
        }
    }

    @Test func kidThatIsNotAThumbprintIsRefusedBeforeUseAsAPath() throws {
        try TestDirectories.withTemporary { directory in
            _ = try Self.initialized(directory)
            var state = try KeyFixtures.stateJSON(in: directory)
            var keys = try #require(state["keys"] as? [[String: Any]])
            keys[0]["kid"] = "../../etc/ssl/private/server"
            state["keys"] = keys
            try KeyFixtures.writeStateJSON(state, in: directory)
            #expect(throws: KeyRingError.invalidKid("../../etc/ssl/private/server")) { try KeyRingDirectory(directory: directory).load() }
        }
    }

    @Test func inMemoryRingInvariants() throws {
        let date = Date(timeIntervalSince1970: 1_750_000_000)
        let activeA = SigningKey(privateKey: TestRSAKeys.a, state: .active, createdAt: date, activatedAt: date)
        let nextA = SigningKey(privateKey: TestRSAKeys.a, state: .next, createdAt: date)
        let nextB = SigningKey(privateKey: TestRSAKeys.b, state: .next, createdAt: date)
        let activeB = SigningKey(privateKey: TestRSAKeys.b, state: .active, createdAt: date, activatedAt: date)
        #expect(throws: KeyRingError.duplicateKid(activeA.kid)) { try KeyRing(keys: [activeA, nextA]) }
        #expect(throws: KeyRingError.noActiveKey) { try KeyRing(keys: [nextB]) }
        #expect(throws: KeyRingError.multipleActiveKeys([activeA.kid, activeB.kid])) { try KeyRing(keys: [activeA, activeB]) }
        let activeC = SigningKey(privateKey: TestRSAKeys.c, state: .active, createdAt: date, activatedAt: date)
        #expect(throws: KeyRingError.multipleNextKeys([nextA.kid, nextB.kid])) { try KeyRing(keys: [activeC, nextA, nextB]) }
        let retiredWithoutWindow = SigningKey(privateKey: TestRSAKeys.b, state: .retired, createdAt: date, activatedAt: date, retiredAt: date)
        #expect(throws: KeyRingError.self) { try KeyRing(keys: [activeA, retiredWithoutWindow]) }
        let ring = try KeyRing(keys: [nextB, activeA])
        #expect(ring.keys.map(\.state) == [.active, .next])
    }

    /// docs/reference.md, "Signing keys": a crash or a concurrent reader never sees a mix. A reader polls `load()` while 200
    /// rotations (and forced prunes, which delete key files) run; every load must give a complete ring.
    @Test func readerNeverSeesABrokenRingDuring200Rotations() throws {
        try TestDirectories.withTemporary { directory in
            let clock = ManualClock()
            // Generating 400 RSA keys would dominate the test; a pool of 16 is reused round-robin. A key
            // comes back only 16 generations later, long after the prune every 5 rounds removed it.
            let pool = try (0..<16).map { _ in try RSAPrivateKey.generate() }
            let generated = Mutex(0)
            let rotation = KeyRotation(store: KeyRingDirectory(directory: directory), policy: KeyFixtures.policy, clock: clock) { _ in
                pool[generated.withLock { count in
                    defer { count += 1 }
                    return count % pool.count
                }]
            }
            _ = try rotation.initialize()

            struct ReaderReport: Sendable {
                var loads = 0
                var failures: [String] = []
                var activeKids = Set<String>()
            }
            let done = Mutex(false)
            let report = Mutex(ReaderReport())
            let started = DispatchSemaphore(value: 0)
            let finished = DispatchSemaphore(value: 0)
            // A thread of its own: on a two-core machine a task could wait for the writer loop to end.
            let reader = Thread {
                let store = KeyRingDirectory(directory: directory)
                var signalled = false
                while !done.withLock({ $0 }) {
                    let outcome = Result { try store.load() }
                    report.withLock { report in
                        report.loads += 1
                        switch outcome {
                        case .success(let ring):
                            if ring.active == nil || ring.next == nil { report.failures.append("incomplete ring: \(ring.keys.map(\.state))") }
                            if let kid = ring.active?.kid { report.activeKids.insert(kid) }
                        case .failure(let error):
                            report.failures.append("\(error)")
                        }
                    }
                    if !signalled {
                        signalled = true
                        started.signal()
                    }
                }
                finished.signal()
            }
            reader.start()
            started.wait()
            for round in 1...200 {
                clock.advance(by: 1)
                _ = try rotation.rotate(force: true)
                if round % 5 == 0 { _ = try rotation.prune(force: true) }
            }
            done.withLock { $0 = true }
            finished.wait()

            let result = report.withLock { $0 }
            #expect(result.failures.isEmpty, "\(result.failures.count) of \(result.loads) loads failed, first: \(result.failures.first ?? "")")
            #expect(result.loads > 50)
            #expect(result.activeKids.count > 5, "the reader should have seen the ring change under it")
            let final = try KeyRingDirectory(directory: directory).load()
            #expect(final.retired.count <= 5)
            // Pruned keys' files are gone; only the ring's keys remain on disk.
            let pems = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".pem") }
            #expect(Set(pems) == Set(final.keys.map { "\($0.kid).pem" }))
        }
    }
}
