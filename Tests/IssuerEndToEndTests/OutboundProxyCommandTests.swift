import Foundation
import Testing
import TestSupport

/// docs/reference.md, "Outbound proxy", as an operator meets it: the built `issuer` reads the
/// proxy variables from its environment, goes through the proxy, and refuses a bad one at start
/// without printing its password.
@Suite("issuer behind an egress proxy")
struct OutboundProxyCommandTests {
    @Test("issuer doctor fetches Apple's keys through HTTP_PROXY, with the URL's credentials")
    func doctorThroughProxy() async throws {
        let proxy = try ConnectProxy()
        defer { proxy.stop() }
        try await MigratedDatabase.with { database, _ in
            let apple = try DoctorSetup.appleKeys(try FakeAppleKeys().jwksJSON)
            defer { apple.stop() }
            var environment = DoctorSetup.healthy(database: database, keys: try TestKeyRing.make(), jwksPort: apple.port)
            environment["HTTP_PROXY"] = "http://ops:pr%40xy@127.0.0.1:\(proxy.port)"
            let result = try await IssuerInvocation.run(["doctor", "--output", "json"], in: FileManager.default.temporaryDirectory, environment: environment)
            #expect(result.code == 0, "\(result.stdout) \(result.stderr)")
            #expect(try DoctorSetup.statuses(try result.json())["apple keys"] == "ok")
            #expect(proxy.tunnels == [ConnectProxy.Tunnel(
                target: "127.0.0.1:\(apple.port)", proxyAuthorization: "Basic " + Data("ops:pr@xy".utf8).base64EncodedString())])
            #expect(!result.stdout.contains("pr@xy") && !result.stdout.contains("pr%40xy"))

            environment["NO_PROXY"] = "127.0.0.1"
            let direct = try await IssuerInvocation.run(["doctor", "--output", "json"], in: FileManager.default.temporaryDirectory, environment: environment)
            #expect(direct.code == 0, "\(direct.stdout) \(direct.stderr)")
            #expect(proxy.tunnels.count == 1, "NO_PROXY: straight to Apple's keys")
        }
    }

    @Test("an invalid proxy URL stops the command at start, naming the variable and not the password", arguments: [
        ("HTTPS_PROXY", "socks5://ops:hunter2@proxy.corp:1080"),
        ("https_proxy", "http://ops:hunter2@proxy.corp:3128/path"),
        ("NO_PROXY", "apple.com:https"),
    ])
    func invalidProxy(variable: String, value: String) async throws {
        let result = try await IssuerInvocation.run(["config", "check"], in: FileManager.default.temporaryDirectory, environment: [variable: value])
        #expect(result.code != 0)
        #expect(result.stderr.contains("invalid configuration: \(variable) "), "\(result.stderr)")
        #expect(!result.stderr.contains("hunter2") && !result.stdout.contains("hunter2"))
    }
}
