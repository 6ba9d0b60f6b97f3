import Foundation
import IssuerCore
import Testing
import TestSupport

/// A valid entry that other entries are set beside.
private let googleEntry = #"{"id":"google","kind":"google","native_audiences":["w"]}"#

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
        (#"{"id":"google"}"#, "must be a JSON array of provider objects, not an object"),
        (#"[{"id":"google","kind":"google","native_audiences":["w"],"hosted_domian":"x"}]"#, "unknown field 'hosted_domian'"),
        (#"[{"id":"google","kind":"github","native_audiences":["w"]}]"#, "kind"),
        (#"[{"id":"apple","kind":"oidc","issuer":"https://a.example","native_audiences":["w"]}]"#, "'apple'"),
        (#"[{"id":"Google","kind":"google","native_audiences":["w"]}]"#, "lowercase"),
        (#"[{"id":"g","kind":"google","native_audiences":["w"]},{"id":"g","kind":"google","native_audiences":["w"]}]"#, "twice"),
        (#"[{"id":"corp","kind":"oidc","native_audiences":["w"]}]"#, "https issuer"),
        (#"[{"id":"corp","kind":"oidc","issuer":"http://login.example.com","native_audiences":["w"]}]"#, "https issuer"),
        (#"[{"id":"google","kind":"google"}]"#, "could sign nobody in"),
        (#"[{"id":"google","kind":"google","client_secret":"x","native_audiences":["w"]}]"#, "no client_id"),
        (#"[{"id":"google","kind":"google","native_audiences":["w"],"client_id":"w","client_secret":"a","client_secret_file":"b"}]"#, "both"),
        (#"[{"id":"google","kind":"google","native_audiences":["w"],"jwks_uri":"http://keys.example.com/"}]"#, "jwks_uri"),
        (#"[{"id":"google","kind":"google","native_audiences":["w"],"link_by_verified_email":"yes"}]"#, "link_by_verified_email must be true or false"),
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

    /// A token's `iss` chooses the provider whose rules it meets, so no issuer may belong to two
    /// entries, nor to an entry and Apple (reference: Google and other OpenID providers).
    @Test("an issuer claimed twice, or Apple's issuer claimed at all, is refused naming the entry and the field", arguments: [
        // Google's two spellings are both the google entry's.
        (#"[\#(googleEntry),{"id":"corp","kind":"oidc","issuer":"https://accounts.google.com","native_audiences":["w"]}]"#, "entry 2 ('corp')", "also entry 1 ('google')"),
        (#"[\#(googleEntry),{"id":"corp","kind":"oidc","issuer":"https://Accounts.Google.com:443/","native_audiences":["w"]}]"#, "entry 2 ('corp')", "also entry 1 ('google')"),
        (#"[{"id":"corp","kind":"oidc","issuer":"https://accounts.google.com/","native_audiences":["w"]},\#(googleEntry)]"#, "entry 2 ('google')", "also entry 1 ('corp')"),
        (#"[\#(googleEntry),{"id":"work","kind":"google","native_audiences":["w2"]}]"#, "entry 2 ('work')", "also entry 1 ('google')"),
        (#"[{"id":"a","kind":"oidc","issuer":"https://login.example.com","native_audiences":["w"]},{"id":"b","kind":"oidc","issuer":"https://login.example.com/","native_audiences":["w"]}]"#, "entry 2 ('b')", "also entry 1 ('a')"),
        (#"[{"id":"corp","kind":"oidc","issuer":"https://appleid.apple.com","native_audiences":["w"]}]"#, "entry 1 ('corp')", "Sign in with Apple's"),
        (#"[{"id":"corp","kind":"oidc","issuer":"https://appleid.apple.com/","native_audiences":["w"]}]"#, "entry 1 ('corp')", "Sign in with Apple's"),
        (#"[{"id":"corp","kind":"oidc","issuer":"https://AppleID.Apple.com.:443","native_audiences":["w"]}]"#, "entry 1 ('corp')", "Sign in with Apple's"),
        (#"[{"id":"fake","kind":"google","issuer":"https://appleid.apple.com","native_audiences":["w"]}]"#, "entry 1 ('fake')", "Sign in with Apple's"),
    ])
    func ambiguousIssuer(json: String, entry: String, reason: String) throws {
        do {
            _ = try Self.registry(json)
            Issue.record("accepted \(json)")
        } catch let problem as ProviderRegistry.Problem {
            #expect(problem.description.hasPrefix("\(entry): the issuer '"), "\(problem.description)")
            #expect(problem.description.contains(reason), "\(problem.description)")
        }
    }

    @Test("issuers that differ (another path on one host, another port) are two providers")
    func distinctIssuers() throws {
        let registry = try Self.registry(#"""
            [{"id":"a","kind":"oidc","issuer":"https://login.example.com/tenant-a","native_audiences":["w"]},
             {"id":"b","kind":"oidc","issuer":"https://login.example.com/tenant-b","native_audiences":["w"]},
             {"id":"c","kind":"oidc","issuer":"https://login.example.com:8443/tenant-a","native_audiences":["w"]},
             {"id":"appleish","kind":"oidc","issuer":"https://appleid.apple.com.example.net","native_audiences":["w"]},
             \#(googleEntry)]
            """#)
        #expect(registry.providers.map(\.id) == ["a", "b", "c", "appleish", "google"])
        #expect(registry.provider(issuer: "https://login.example.com/tenant-b")?.id == "b")
    }

    /// Foundation's parsers accept a trailing comma and keep one of two members of one name; the
    /// file is read by RFC 8259's grammar instead, and each refusal names where.
    @Test("a file that is not strictly one JSON array of provider objects is refused, naming the entry and the field", arguments: [
        (#"[\#(googleEntry),]"#, "line 1, column 59: a trailing comma before ']'"),
        ("[\n \(googleEntry.dropLast()),\n  }\n]", "line 3, column 3: a trailing comma before '}'"),
        (#"[{"id":"google","kind":"google","native_audiences":["w",]}]"#, "a trailing comma before ']'"),
        (#"[{"id":"google","kind":"google","native_audiences":["w"]}] []"#, "more after the array"),
        (#"[{"id":"google","kind":"google","native_audiences":["w"],"hosted_domain":"a.example","hosted_domain":"b.example"}]"#,
         "entry 1 ('google') has the field 'hosted_domain' twice"),
        (#"[{"id":"google","kind":"google","native_audiences":["w"],"hosted_domain":null}]"#, "entry 1 ('google'): hosted_domain is null"),
        (#"[\#(googleEntry),{"id":"corp","kind":"oidc","issuer":"https://login.example.com","native_audiences":["w"],"hosted_domian":"x"}]"#,
         "entry 2 ('corp') has an unknown field 'hosted_domian'"),
        (#"[{"kind":"oidc","issuer":"https://login.example.com","native_audiences":["w"]}]"#, "entry 1 needs an id"),
        (#"[{"id":"google","kind":"github","native_audiences":["w"]}]"#, "entry 1 ('google'): the kind 'github' is not one"),
        (#"[{"id":"google","native_audiences":["w"]}]"#, "entry 1 ('google') needs a kind"),
        (#"[\#(googleEntry),{"id":"corp","kind":"oidc","issuer":"https://login.example.com","scopes":"openid"}]"#,
         "entry 2 ('corp'): scopes must be an array of strings"),
        (#"[\#(googleEntry),{"id":"corp","kind":"oidc","issuer":"https://login.example.com","native_audiences":[7]}]"#,
         "entry 2 ('corp'): native_audiences must be an array of strings"),
        (#"[\#(googleEntry),"corp"]"#, "entry 2 is a string, not a provider object"),
        (#"[\#(googleEntry),{"id":"google","kind":"oidc","issuer":"https://login.example.com","native_audiences":["w"]}]"#,
         "entry 2 ('google'): the id is listed twice (also entry 1 ('google'))"),
    ])
    func refusedNamingTheEntry(json: String, message: String) throws {
        do {
            _ = try Self.registry(json)
            Issue.record("accepted \(json)")
        } catch let problem as ProviderRegistry.Problem {
            #expect(problem.description.contains(message), "\(problem.description)")
        }
    }

    @Test("strict is still JSON: a byte order mark, escapes and any whitespace are read as Foundation reads them")
    func strictStillJSON() throws {
        let registry = try Self.registry("\u{FEFF}[\r\n\t{ \"id\" : \"\\u0067oogle\", \"kind\":\"google\",\n \"native_audiences\": [\"a\\/b\\\"c\"] } ]\n")
        let google = try #require(registry.provider(id: "google"))
        #expect(google.nativeAudiences == [#"a/b"c"#])
    }

    @Test("deep nesting is refused, not recursed into without end")
    func deepNesting() throws {
        let json = #"[{"id":"google","kind":"google","native_audiences":"# + String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000) + "}]"
        do {
            _ = try Self.registry(json)
            Issue.record("accepted")
        } catch let problem as ProviderRegistry.Problem {
            #expect(problem.description.contains("nested more than"), "\(problem.description)")
        }
    }

    @Test("a refusal stays on one line whatever the entry holds", arguments: [
        (#"[{"id":"x\ny","kind":"google","native_audiences":["w"]}]"#, #"entry 1 ('x\ny') needs an id"#),
        (#"[{"id":"corp","kind":"oidc\r\ninvalid configuration: forged","native_audiences":["w"]}]"#,
         #"entry 1 ('corp'): the kind 'oidc\r\ninvalid configuration: forged' is not one"#),
    ])
    func oneLine(json: String, message: String) throws {
        do {
            _ = try Self.registry(json)
            Issue.record("accepted")
        } catch let problem as ProviderRegistry.Problem {
            #expect(!problem.description.contains("\n") && !problem.description.contains("\r"), "\(problem.description)")
            #expect(problem.description.hasPrefix(message), "\(problem.description)")
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
