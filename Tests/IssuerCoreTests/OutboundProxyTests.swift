import Foundation
import IssuerCore
import IssuerStorage
import Testing

/// docs/reference.md, "Outbound proxy": `HTTPS_PROXY`, `HTTP_PROXY` and `NO_PROXY`, read once at
/// start into a value that decides, per URL, which proxy a call goes through.
@Suite("Outbound proxy settings (reference: Outbound proxy)")
struct OutboundProxyTests {
    static let apple = URL(string: "https://appleid.apple.com/auth/keys")!

    @Test("no variable set: every call is direct")
    func unset() throws {
        let proxy = try OutboundProxy(environment: ["HTTPS_PROXY": "", "PATH": "/usr/bin"])
        #expect(proxy == .direct)
        #expect(proxy.server(for: Self.apple) == nil)
    }

    @Test("HTTPS_PROXY is for https URLs and HTTP_PROXY for http ones; upper case wins over lower case")
    func perScheme() throws {
        let proxy = try OutboundProxy(environment: [
            "HTTPS_PROXY": "http://secure.proxy:3128", "https_proxy": "http://ignored.proxy:1",
            "http_proxy": "plain.proxy:8080",
        ])
        #expect(proxy.server(for: Self.apple) == ProxyServer(host: "secure.proxy", port: 3128))
        #expect(proxy.server(for: URL(string: "http://example.com/x")!) == ProxyServer(host: "plain.proxy", port: 8080))
        let lower = try OutboundProxy(environment: ["https_proxy": "http://lower.proxy"])
        #expect(lower.server(for: Self.apple) == ProxyServer(host: "lower.proxy", port: 80), "no port: 80")
        #expect(lower.server(for: URL(string: "http://example.com/")!) == nil, "HTTPS_PROXY is not used for http")
    }

    @Test("credentials in the proxy URL become basic authorization and are never printed")
    func credentials() throws {
        let proxy = try OutboundProxy(environment: ["HTTPS_PROXY": "http://alice:s%40cret%3A1@proxy.corp:3128/"])
        let server = try #require(proxy.server(for: Self.apple))
        #expect(server.credentials?.revealed == ProxyServer.Credentials(username: "alice", password: "s@cret:1"))
        // RFC 7617 §2: base64("alice:s@cret:1").
        #expect(server.basicAuthorization?.revealed == "Basic " + Data("alice:s@cret:1".utf8).base64EncodedString())
        for printed in ["\(server)", String(describing: proxy), String(reflecting: proxy), "\(server.credentials!)"] {
            #expect(!printed.contains("s@cret") && !printed.contains("s%40cret") && !printed.contains("alice"), "\(printed)")
        }
        #expect(server.description == "http://proxy.corp:3128")
        #expect(try OutboundProxy(environment: ["HTTPS_PROXY": "http://bob@proxy.corp"]).https?.credentials?.revealed.password == "")
    }

    @Test("an invalid proxy URL is a configuration error naming the variable, without the password", arguments: [
        ("HTTPS_PROXY", "https://proxy.corp:3128", "https:// is not supported"),
        ("HTTPS_PROXY", "socks5://proxy.corp:1080", "socks5:// is not supported"),
        ("https_proxy", "http://proxy.corp:99999", "port"),
        ("HTTP_PROXY", "http://proxy.corp:3128/path", "without path"),
        ("HTTPS_PROXY", "http://", "not a proxy URL"),
        ("HTTPS_PROXY", "http://user:hunter2@proxy.corp:3128/x?y", "without path"),
        ("HTTPS_PROXY", "ftp://user:hunter2@proxy.corp", "ftp://"),
    ])
    func invalidProxyURL(variable: String, value: String, mention: String) {
        let error = #expect(throws: ConfigurationError.self) { try OutboundProxy(environment: [variable: value]) }
        #expect(error?.setting == variable)
        #expect(error?.description.contains(mention) == true, "\(error?.description ?? "")")
        #expect(error?.description.contains("hunter2") == false)
        #expect(error?.description.contains("user") == false)
    }

    @Test("the proxy settings are part of the configuration, and an invalid one stops it at start")
    func configuration() throws {
        let configuration = try Configuration(environment: ["HTTPS_PROXY": "http://proxy.corp:3128", "NO_PROXY": "internal.corp"])
        #expect(configuration.outboundProxy.https == ProxyServer(host: "proxy.corp", port: 3128))
        #expect(configuration.outboundProxy.noProxy == [.domain("internal.corp", port: nil)])
        #expect(try Configuration(environment: [:]).outboundProxy == .direct)
        let error = #expect(throws: ConfigurationError.self) {
            try Configuration(environment: ["https_proxy": "http://a:b@proxy.corp:http"])
        }
        #expect(error?.description == "invalid configuration: https_proxy is not a proxy URL such as http://proxy.example.com:3128 (got 'http://<redacted>@proxy.corp:http')")
    }

    @Test("NO_PROXY: names match themselves and their subdomains, addresses and CIDRs by address, ports when given, * everything", arguments: [
        ("appleid.apple.com", "https://appleid.apple.com/auth/keys", true),
        ("apple.com", "https://appleid.apple.com/auth/keys", true),
        (".apple.com", "https://appleid.apple.com/auth/keys", true),
        (".apple.com", "https://apple.com/", true),
        ("APPLE.COM.", "https://appleid.apple.com/", true),
        ("*.apple.com", "https://appleid.apple.com/", true),
        ("le.com", "https://appleid.apple.com/", false),
        ("apple.com.evil", "https://appleid.apple.com/", false),
        ("other.example, apple.com", "https://appleid.apple.com/", true),
        ("apple.com:443", "https://appleid.apple.com/", true),
        ("apple.com:8443", "https://appleid.apple.com/", false),
        ("apple.com:8443", "https://appleid.apple.com:8443/", true),
        ("10.0.0.0/8", "https://10.1.2.3/keys", true),
        ("10.0.0.0/8", "https://11.1.2.3/keys", false),
        ("10.0.0.0/8", "https://ten.example/keys", false),
        ("192.0.2.7", "https://192.0.2.7/", true),
        ("2001:db8::/32", "https://[2001:db8::1]/", true),
        ("[2001:db8::1]:443", "https://[2001:db8::1]/", true),
        ("[2001:db8::1]:8443", "https://[2001:db8::1]/", false),
        ("*", "https://appleid.apple.com/", true),
        ("", "https://appleid.apple.com/", false),
        (" , ,apple.com", "https://appleid.apple.com/", true),
    ])
    func noProxy(list: String, url: String, bypasses: Bool) throws {
        let proxy = try OutboundProxy(environment: ["HTTPS_PROXY": "http://proxy.corp:3128", "no_proxy": list])
        #expect((proxy.server(for: URL(string: url)!) == nil) == bypasses)
    }

    @Test("a NO_PROXY entry that is not a host, address, CIDR or * is a configuration error", arguments: [
        "apple.com:https", "10.0.0.0/33", "[::1", "[::1]x", "a b", "*.*",
    ])
    func invalidNoProxy(entry: String) {
        let error = #expect(throws: ConfigurationError.self) {
            try OutboundProxy(environment: ["NO_PROXY": "fine.example,\(entry)"])
        }
        #expect(error?.setting == "NO_PROXY")
    }

    @Test("a loopback target goes direct past a remote proxy",
          arguments: ["http://127.0.0.1:9090/auth/keys", "http://localhost:9090/", "http://[::1]:9090/", "https://localhost/"])
    func loopbackDirect(url: String) throws {
        let remote = try OutboundProxy(environment: ["HTTP_PROXY": "http://proxy.corp:3128", "HTTPS_PROXY": "http://proxy.corp:3128"])
        #expect(remote.server(for: try #require(URL(string: url))) == nil)
    }

    @Test("a loopback target goes through a proxy that is itself on loopback, unless NO_PROXY names it")
    func loopbackProxy() throws {
        let local = try OutboundProxy(environment: ["HTTP_PROXY": "http://127.0.0.1:3128"])
        #expect(local.server(for: URL(string: "http://127.0.0.1:9090/auth/keys")!) == ProxyServer(host: "127.0.0.1", port: 3128))
        let bypassed = try OutboundProxy(environment: ["HTTP_PROXY": "http://127.0.0.1:3128", "NO_PROXY": "127.0.0.1"])
        #expect(bypassed.server(for: URL(string: "http://127.0.0.1:9090/auth/keys")!) == nil, "NO_PROXY still applies")
    }
}
