import AsyncHTTPClient
import Foundation
import HummingbirdTesting
import IssuerCore
import IssuerStorage
@testable import IssuerServer
import Logging
import Testing
import TestSupport

/// docs/reference.md, "Outbound proxy": every outbound call (Apple's JWKS, token and revoke
/// endpoints) goes through `HTTPS_PROXY`/`HTTP_PROXY` with `CONNECT`, with the proxy URL's
/// credentials, except for the hosts `NO_PROXY` lists. Through a real proxy on loopback
/// (`ConnectProxy`), which records each tunnel.
@Suite("Outbound calls through HTTPS_PROXY and HTTP_PROXY, but for NO_PROXY", .timeLimit(.minutes(5)))
struct OutboundProxyFetchTests {
    static let jwks = #"{"keys":[{"kty":"RSA","kid":"k1","use":"sig","alg":"RS256","n":"sXch","e":"AQAB"}]}"#

    /// Apple's JWKS on loopback; stopped (with the proxy) when `body` ends.
    static func withServers(_ body: (ConnectProxy, ScriptedHTTPServer) async throws -> Void) async throws {
        let proxy = try ConnectProxy()
        let keys = try ScriptedHTTPServer { _, send in
            _ = send("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(jwks.utf8.count)\r\nConnection: close\r\n\r\n\(jwks)")
        }
        defer {
            proxy.stop()
            keys.stop()
        }
        try await body(proxy, keys)
    }

    static func fetcher(_ environment: [String: String]) throws -> HTTPJWKSFetcher {
        HTTPJWKSFetcher(fetch: RemoteFetch(proxy: try OutboundProxy(environment: environment)))
    }

    @Test("the JWKS is fetched through the proxy's tunnel, with the proxy URL's credentials as basic authorization")
    func jwksThroughProxy() async throws {
        try await Self.withServers { proxy, keys in
            let fetcher = try Self.fetcher(["HTTP_PROXY": "http://issuer:pa%3Ass@127.0.0.1:\(proxy.port)"])
            let document = try await fetcher.fetchJWKS(from: URL(string: "http://127.0.0.1:\(keys.port)/auth/keys")!)
            #expect(String(decoding: document.body, as: UTF8.self) == Self.jwks)
            #expect(proxy.tunnels == [ConnectProxy.Tunnel(
                target: "127.0.0.1:\(keys.port)", proxyAuthorization: "Basic " + Data("issuer:pa:ss".utf8).base64EncodedString())])
            #expect(keys.requestedPaths == ["/auth/keys"])
        }
    }

    @Test("a host NO_PROXY lists is fetched directly: the proxy sees nothing", arguments: ["127.0.0.1", "127.0.0.0/8", "*"])
    func noProxyGoesDirect(entry: String) async throws {
        try await Self.withServers { proxy, keys in
            let fetcher = try Self.fetcher(["http_proxy": "127.0.0.1:\(proxy.port)", "no_proxy": "other.example, \(entry)"])
            let document = try await fetcher.fetchJWKS(from: URL(string: "http://127.0.0.1:\(keys.port)/auth/keys")!)
            #expect(String(decoding: document.body, as: UTF8.self) == Self.jwks)
            #expect(proxy.tunnels.isEmpty)
            #expect(keys.requestedPaths == ["/auth/keys"])
        }
    }

    @Test("an https call to Apple asks the proxy for a tunnel to appleid.apple.com:443 (never connects directly), and fails when it refuses")
    func httpsThroughProxy() async throws {
        try await Self.withServers { proxy, _ in
            let fetcher = try Self.fetcher(["HTTPS_PROXY": "http://127.0.0.1:\(proxy.port)"])
            await #expect(throws: RemoteFetchError.self) {
                try await fetcher.fetchJWKS(from: URL(string: "https://appleid.apple.com/auth/keys")!)
            }
            // AsyncHTTPClient asks again until the deadline; every ask is for Apple through the proxy.
            let tunnels = proxy.tunnels
            #expect(!tunnels.isEmpty)
            #expect(tunnels.allSatisfy { $0.target == "appleid.apple.com:443" }, "\(tunnels)")
            #expect(tunnels.allSatisfy { $0.proxyAuthorization == nil }, "no credentials in the URL: no authorization")
        }
    }

    @Test("issuer serve's dependencies take the configured proxy for the JWKS and Apple's token and revoke endpoints")
    func dependenciesUseConfiguredProxy() async throws {
        let configuration = try Configuration(environment: ["HTTPS_PROXY": "http://proxy.corp:3128", "NO_PROXY": "internal.corp"])
        let dependencies = try await TestCluster.withFreshPool(size: 1) { pool in
            IssuerDependencies(
                configuration: configuration, pool: pool, logger: Logger(label: "test"),
                serverSecret: ServerSecret(bytes: Array(repeating: 1, count: 32)), clock: SystemClock())
        }
        #expect((dependencies.jwksFetcher as? HTTPJWKSFetcher)?.fetch.proxy == configuration.outboundProxy)
        #expect((dependencies.formPoster as? HTTPFormPoster)?.proxy == configuration.outboundProxy)
        #expect(configuration.outboundProxy != .direct)
    }

    @Test("with HTTP_PROXY set, the issuer redeems Apple's code and revokes Apple's token through the proxy")
    func appleCustodyThroughProxy() async throws {
        let proxy = try ConnectProxy()
        defer { proxy.stop() }
        try await AppleTestRig.run(environment: ["HTTP_PROXY": "http://custody:secret@127.0.0.1:\(proxy.port)"]) { rig in
            let (code, _) = rig.apple.issueCode(subject: "proxied.user")
            try await AppleTestRig.test(rig.fixture) { client in
                let tokens = try await AppleTestRig.signIn(client, rig.fixture, subject: "proxied.user", code: code)
                #expect(try await AccountDeletionRequest.delete(client, session: tokens).status == .noContent)
            }
            #expect(rig.apple.state.withLock { $0.tokenRequests } == 1)
            #expect(rig.apple.state.withLock { $0.revoked.count } == 1)
        }
        let tunnels = proxy.tunnels
        #expect(!tunnels.isEmpty, "the token and revoke calls went through the proxy")
        #expect(Set(tunnels.map(\.target)).count == 1, "to the fake Apple only")
        #expect(tunnels.allSatisfy { $0.proxyAuthorization == "Basic " + Data("custody:secret".utf8).base64EncodedString() })
    }
}
