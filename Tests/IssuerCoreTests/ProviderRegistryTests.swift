import Foundation
import IssuerCore
import Testing
import TestSupport

/// `ISSUER_PROVIDERS_FILE` (reference: Configuration, Google and other OpenID providers): what a
/// valid file gives, and every kind of invalid file stopping the start with a line naming why.
@Suite struct ProviderRegistryTests {
    static func registry(_ json: String, secretFile: String? = nil) throws -> ProviderRegistry {
        try TestDirectories.withTemporary("providers") { directory in
            if let secretFile { try secretFile.write(to: directory.appendingPathComponent("secret"), atomically: true, encoding: .utf8) }
            let file = directory.appendingPathComponent("providers.json")
            try json.write(to: file, atomically: true, encoding: .utf8)
            return try ProviderRegistry(contentsOf: file)
        }
    }

    @Test func googleDefaults() throws {
        let registry = try Self.registry(#"[{"id":"google","kind":"google","native_audiences":["web"],"client_id":"web","client_secret_file":"secret"}]"#, secretFile: "s3cret\n")
        let google = try #require(registry.provider(id: "google"))
        #expect(google.issuer == "https://accounts.google.com")
        #expect(google.issuers == ["https://accounts.google.com", "accounts.google.com"])
        #expect(google.jwksURI == ProviderSettings.Google.jwksURI)
        #expect(google.tokenEndpoint == ProviderSettings.Google.tokenEndpoint)
        #expect(google.clientSecret?.revealed == "s3cret", "one trailing newline stripped")
        #expect("\(google)".contains("s3cret") == false, "the secret never prints")
        #expect(google.scopes == ["openid", "email", "profile"])
        #expect(google.servesHostedFlow)
        #expect(registry.provider(issuer: "accounts.google.com")?.id == "google")
    }

    @Test func oidcEndpointsComeFromDiscovery() throws {
        let registry = try Self.registry(#"[{"id":"corp","kind":"oidc","issuer":"https://login.example.com/","native_audiences":["app"]}]"#)
        let corp = try #require(registry.provider(id: "corp"))
        #expect(corp.jwksURI == nil && corp.tokenEndpoint == nil)
        #expect(corp.discoveryURL?.absoluteString == "https://login.example.com/.well-known/openid-configuration")
        #expect(corp.issuers == ["https://login.example.com/"])
    }

    @Test("refused at start, naming why", arguments: [
        (#"{"id":"google"}"#, "not a JSON array"),
        (#"[{"id":"google","kind":"google","native_audiences":["w"],"hosted_domian":"x"}]"#, "unknown field 'hosted_domian'"),
        (#"[{"id":"google","kind":"facebook","native_audiences":["w"]}]"#, "kind"),
        (#"[{"id":"apple","kind":"oidc","issuer":"https://a.example","native_audiences":["w"]}]"#, "'apple'"),
        (#"[{"id":"Google","kind":"google","native_audiences":["w"]}]"#, "lowercase"),
        (#"[{"id":"g","kind":"google","native_audiences":["w"]},{"id":"g","kind":"google","native_audiences":["w"]}]"#, "twice"),
        (#"[{"id":"corp","kind":"oidc","native_audiences":["w"]}]"#, "https issuer"),
        (#"[{"id":"corp","kind":"oidc","issuer":"http://login.example.com","native_audiences":["w"]}]"#, "https issuer"),
        (#"[{"id":"google","kind":"google"}]"#, "could sign nobody in"),
        (#"[{"id":"google","kind":"google","client_secret":"x","native_audiences":["w"]}]"#, "no client_id"),
        (#"[{"id":"google","kind":"google","native_audiences":["w"],"client_id":"w","client_secret":"a","client_secret_file":"b"}]"#, "both"),
        (#"[{"id":"google","kind":"google","native_audiences":["w"],"jwks_uri":"http://keys.example.com/"}]"#, "jwks_uri"),
        (#"[{"id":"google","kind":"google","native_audiences":["w"],"link_by_verified_email":"yes"}]"#, "wrong type"),
        (#"[{"id":"google","kind":"google","native_audiences":["w"],"scopes":["email"]}]"#, "openid"),
    ])
    func refused(json: String, reason: String) throws {
        do {
            _ = try Self.registry(json)
            Issue.record("accepted \(json)")
        } catch let problem as ProviderRegistry.Problem {
            #expect(problem.description.contains(reason), "\(problem.description)")
        }
    }

    @Test("a secret given inline never appears in the refusal of another field")
    func secretNotEchoed() throws {
        do {
            _ = try Self.registry(#"[{"id":"google","kind":"google","client_id":"w","client_secret":"hunter2","scopes":["email"]}]"#)
            Issue.record("accepted")
        } catch let problem as ProviderRegistry.Problem {
            #expect(!problem.description.contains("hunter2"))
        }
    }
}
