import Foundation
@testable import IssuerCore
import Testing

/// A providers-file entry of kind `facebook` (reference: Facebook): its own fields, Facebook's
/// published values as defaults, and everything else refused at start.
@Suite("Providers file: kind facebook (reference: Facebook)")
struct FacebookProviderSettingsTests {
    @Test("app_id and the secret are enough: Limited Login's issuers, keys, Graph API and dialog are Facebook's")
    func defaults() throws {
        let registry = try ProviderRegistryTests.registry(
            #"[{"id":"facebook","kind":"facebook","app_id":"1234567890","app_secret_file":"secret"}]"#, secretFile: "fb-secret\n")
        let facebook = try #require(registry.provider(id: "facebook"))
        #expect(facebook.kind == .facebook)
        #expect(facebook.issuers == ["https://www.facebook.com", "https://facebook.com"])
        #expect(facebook.clientID == "1234567890")
        #expect(facebook.clientSecret?.revealed == "fb-secret")
        #expect(facebook.nativeAudiences == ["1234567890"])
        #expect(facebook.jwksURI?.absoluteString == "https://limited.facebook.com/.well-known/oauth/openid/jwks/")
        #expect(facebook.graphURL?.absoluteString == "https://graph.facebook.com")
        #expect(facebook.graphVersion == "v23.0")
        #expect(facebook.authorizationEndpoint?.absoluteString == "https://www.facebook.com/v23.0/dialog/oauth")
        #expect(facebook.tokenEndpoint?.absoluteString == "https://graph.facebook.com/v23.0/oauth/access_token")
        #expect(facebook.servesHostedFlow)
        #expect(IdentityProvider(facebook).algorithms == [.rs256])
        #expect(registry.provider(issuer: "https://facebook.com")?.id == "facebook")
    }

    @Test("endpoints and the Graph version can be set, for tests and unusual deployments")
    func overrides() throws {
        let registry = try ProviderRegistryTests.registry(#"""
            [{"id":"fb","kind":"facebook","app_id":"42","app_secret":"s","graph_url":"http://127.0.0.1:9093","graph_version":"v19.0",
              "jwks_uri":"http://127.0.0.1:9093/jwks","authorization_endpoint":"http://127.0.0.1:9093/dialog",
              "token_endpoint":"http://127.0.0.1:9093/token"}]
            """#)
        let facebook = try #require(registry.provider(id: "fb"))
        #expect(facebook.graphURL?.absoluteString == "http://127.0.0.1:9093")
        #expect(facebook.graphVersion == "v19.0")
        #expect(facebook.jwksURI?.absoluteString == "http://127.0.0.1:9093/jwks")
        #expect(facebook.authorizationEndpoint?.absoluteString == "http://127.0.0.1:9093/dialog")
        #expect(facebook.tokenEndpoint?.absoluteString == "http://127.0.0.1:9093/token")
    }

    @Test("refused at start, naming the entry and why", arguments: [
        (#"[{"id":"facebook","kind":"facebook","app_id":"1","app_secret":"s","link_by_verified_email":true}]"#, "link_by_verified_email cannot be used"),
        (#"[{"id":"facebook","kind":"facebook","app_id":"1","app_secret":"s","link_by_verified_email":false}]"#, "link_by_verified_email cannot be used"),
        (#"[{"id":"facebook","kind":"facebook","app_id":"1","app_secret":"s","native_audiences":["1"]}]"#, "native_audiences is not a field of kind \"facebook\""),
        (#"[{"id":"facebook","kind":"facebook","app_id":"1","app_secret":"s","client_id":"1"}]"#, "client_id is not a field"),
        (#"[{"id":"facebook","kind":"facebook","app_secret":"s"}]"#, "needs an app_id"),
        (#"[{"id":"facebook","kind":"facebook","app_id":"my-app","app_secret":"s"}]"#, "digits only"),
        (#"[{"id":"facebook","kind":"facebook","app_id":"1"}]"#, "needs app_secret or app_secret_file"),
        (#"[{"id":"facebook","kind":"facebook","app_id":"1","app_secret":"s","app_secret_file":"f"}]"#, "both app_secret and app_secret_file"),
        (#"[{"id":"facebook","kind":"facebook","app_id":"1","app_secret":"s","graph_url":"http://graph.example.com"}]"#, "graph_url must be an https URL"),
        (#"[{"id":"facebook","kind":"facebook","app_id":"1","app_secret":"s","graph_version":"23"}]"#, "graph_version must look like v23.0"),
        (#"[{"id":"google","kind":"google","native_audiences":["w"],"app_id":"1"}]"#, "app_id is a field of kind \"facebook\" only"),
        (#"[{"id":"facebook","kind":"facebook","app_id":"1","app_secret":"s"},{"id":"meta","kind":"facebook","app_id":"2","app_secret":"t"}]"#,
         "two providers with one issuer"),
    ])
    func refused(json: String, message: String) throws {
        do {
            _ = try ProviderRegistryTests.registry(json)
            Issue.record("accepted \(json)")
        } catch let problem as ProviderRegistry.Problem {
            #expect(problem.description.contains(message), "\(problem.description)")
            #expect(!problem.description.contains("\"s\""), "a secret is never echoed")
        }
    }
}
