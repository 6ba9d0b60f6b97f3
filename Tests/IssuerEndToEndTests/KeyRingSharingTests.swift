import Foundation
import Testing
import TestSupport

@Suite("Several issuer processes share one key ring")
struct KeyRingSharingTests {
    @Test("two servers publish the same JWKS and pick up a rotation within the reload interval; SIGHUP reloads at once")
    func sharedRing() async throws {
        let database = try await TestCluster.freshDatabase()
        let directory = try TestDirectories.created("shared-ring")
        defer { TestDirectories.remove(directory) }
        let keys = directory.appendingPathComponent("keys").path
        let initialized = try await IssuerCommand.run(["keys", "init", "--keys-dir", keys], in: directory)
        #expect(initialized.code == 0, "\(initialized.output)")

        let ports = TestPorts.distinct(2)
        let reloadSeconds = ["1", "3600"]
        var servers: [ChildProcess] = []
        defer { servers.forEach { $0.kill() } }
        for (port, reload) in zip(ports, reloadSeconds) {
            servers.append(try IssuerCommand.start(["serve", "--port", "\(port)", "--keys-reload-seconds", reload], in: directory, environment: ["ISSUER_DATABASE_URL": database, "ISSUER_KEYS_DIR": keys]))
        }
        for port in ports {
            let ready = await TestHTTP.waitUntilOK(port: port, path: "/readyz", attempts: 300)
            #expect(ready, "server on \(port): \(servers.map(\.output))")
        }
        let before = await ports.asyncMap { await TestHTTP.get(port: $0, path: "/oauth2/jwks.json")?.body }
        #expect(before[0] != nil && before[0] == before[1], "both publish the same JWKS")

        let rotated = try await IssuerCommand.run(["keys", "rotate", "--force", "--keys-dir", keys], in: directory)
        #expect(rotated.code == 0, "\(rotated.output)")

        // The server reloading every second sees the new ring within a few seconds.
        var fast: String?
        let end = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < end {
            fast = await TestHTTP.get(port: ports[0], path: "/oauth2/jwks.json")?.body
            if let fast, fast != before[0] { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(fast != nil && fast != before[0], "picked up within the reload interval")
        // The other reloads hourly, so only SIGHUP makes it change now.
        #expect(await TestHTTP.get(port: ports[1], path: "/oauth2/jwks.json")?.body == before[1])
        servers[1].signal(SIGHUP)
        var slow: String?
        for _ in 0..<150 {
            slow = await TestHTTP.get(port: ports[1], path: "/oauth2/jwks.json")?.body
            if slow == fast { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(slow == fast, "SIGHUP re-reads the ring at once, and both agree")
    }
}

extension Array {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
