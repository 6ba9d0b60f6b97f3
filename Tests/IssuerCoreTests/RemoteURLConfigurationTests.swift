import Foundation
import IssuerCore
import IssuerStorage
import Testing

/// docs/reference.md, "Faults and bad input": Apple's endpoints over `https`, plain `http` only to loopback, refused at start with
/// the setting named.
@Suite("Apple URL settings: https, or http to loopback only (reference: Faults and bad input)")
struct RemoteURLConfigurationTests {
    static let settings = ["ISSUER_APPLE_JWKS_URL", "ISSUER_APPLE_AUTHORIZE_URL", "ISSUER_APPLE_TOKEN_URL", "ISSUER_APPLE_REVOKE_URL"]

    @Test("Accepted", arguments: settings, [
        "https://appleid.apple.com/auth/keys", "HTTPS://example.com:8443/keys", "http://127.0.0.1:9/keys",
        "http://127.1.2.3/keys", "http://localhost:8080/keys", "http://LOCALHOST/keys", "http://[::1]:8080/keys",
    ])
    func accepted(setting: String, url: String) throws {
        #expect(throws: Never.self) { try Configuration(environment: [setting: url]) }
    }

    @Test("Refused, naming the setting", arguments: settings, [
        "http://appleid.apple.com/auth/keys", "http://10.0.0.1/keys", "http://[::2]/keys", "http://localhost.example.com/keys", "http://evil.localhost/keys",
        "http://128.0.0.1/keys", "http://0.0.0.0/keys", "ftp://127.0.0.1/keys",
    ])
    func refused(setting: String, url: String) {
        #expect {
            try Configuration(environment: [setting: url])
        } throws: { error in
            (error as? ConfigurationError)?.setting == setting
        }
    }

    @Test("Loopback hosts", arguments: [
        ("http://127.0.0.1/", true), ("http://localhost./", true), ("http://a.localhost/", false), ("http://[::1]/", true),
        ("http://[::ffff:127.0.0.1]/", true), ("http://127.0.0.1.nip.io/", false), ("http://2130706433/", false),
        ("https://anything.example/", true), ("https:///nohost", false), ("file:///etc/passwd", false),
    ])
    func loopback(url: String, allowed: Bool) {
        #expect(URL(string: url)?.isSecureOrLoopback == allowed)
    }
}
