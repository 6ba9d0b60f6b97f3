import Foundation
import IssuerCore
import Testing
import TestSupport

/// docs/reference.md, "Configuration" `ISSUER_CLIENTS_FILE`.
@Suite("Client registry (reference: Configuration)")
struct ClientRegistryTests {
    @Test("the default client: login and sign-out URIs apart, offline_access allowed")
    func defaultClient() {
        let client = ClientRegistry.default.defaultClient
        #expect(client.clientID == "clanboards-mobile")
        #expect(client.redirectURIs == ["clanboards://oauthredirect"])
        #expect(client.postLogoutRedirectURIs == ["clanboards://signout"])
        #expect(client.scopes == ["openid", "email", "profile", "offline_access"])
        #expect(client.appleAudiences == nil)
    }

    @Test("the client a native sign-in names when it names none: clanboards-mobile when registered, wherever it is; else the first")
    func defaultAmongMany() throws {
        let withIt = try ClientsFile.load(#"""
            [{"client_id": "web", "redirect_uris": ["https://app.example/cb"], "scopes": ["openid"]},
             {"client_id": "clanboards-mobile", "redirect_uris": ["clanboards://cb"], "scopes": ["openid"]}]
            """#)
        #expect(withIt.defaultClient.clientID == "clanboards-mobile")
        let without = try ClientsFile.load(#"""
            [{"client_id": "web", "redirect_uris": ["https://app.example/cb"], "scopes": ["openid"]},
             {"client_id": "ios", "redirect_uris": ["ios://cb"], "scopes": ["openid"]}]
            """#)
        #expect(without.defaultClient.clientID == "web")
    }

    @Test("optional members are read; apple_audiences restricts the client")
    func optionalMembers() throws {
        let registry = try ClientsFile.load(#"""
            [{"client_id": "web", "redirect_uris": ["https://app.example/cb"], "post_logout_redirect_uris": ["https://app.example/bye"],
              "scopes": ["openid"], "apple_audiences": ["com.example.web"], "id_token_on_refresh": false},
             {"client_id": "ios", "redirect_uris": ["com.example.app:/cb"], "scopes": ["openid"]}]
            """#)
        let web = try #require(registry.client(id: "web"))
        #expect(web.postLogoutRedirectURIs == ["https://app.example/bye"])
        #expect(web.accepts(appleAudience: "com.example.web"))
        #expect(!web.accepts(appleAudience: "com.example.app"))
        #expect(!web.idTokenOnRefresh)
        let ios = try #require(registry.client(id: "ios"))
        #expect(ios.postLogoutRedirectURIs.isEmpty)
        #expect(ios.accepts(appleAudience: "anything"))
        #expect(ios.idTokenOnRefresh, "an ID token on refresh unless the client says otherwise")
    }

    @Test("authenticate answers the registered client by its exact client_id, else invalid_client as every endpoint words it")
    func authenticate() throws {
        let registry = try ClientRegistry(clients: [
            OAuthClient(clientID: "web", redirectURIs: ["https://app.example/cb"], scopes: ["openid"]),
            OAuthClient(clientID: "ios", redirectURIs: ["com.example.app:/cb"], scopes: ["openid", "email"]),
        ])
        #expect(try registry.authenticate("ios") == registry.clients[1])
        #expect(try registry.authenticate("web") == registry.clients[0])
        let unknown = OAuthError(.invalidClient, "Unknown client_id.")
        // RFC 6749 §2.2: a client_id is compared as given, not folded or trimmed.
        for clientID in ["android", "IOS", "ios ", ""] {
            #expect(throws: unknown) { try registry.authenticate(clientID) }
        }
    }

    @Test("refused at start", arguments: [
        (#"[{"client_id": "a", "redirect_uris": ["x://cb"], "post_logout_redirect_uris": ["x://cb"], "scopes": ["openid"]}]"#, "both"),
        (#"[{"client_id": "a", "redirect_uris": ["x://cb#frag"], "scopes": ["openid"]}]"#, "invalid redirect URI"),
        (#"[{"client_id": "a", "redirect_uris": ["x://cb"], "post_logout_redirect_uris": ["x://bye#f"], "scopes": ["openid"]}]"#, "invalid redirect URI"),
        (#"[{"client_id": "a", "redirect_uris": ["x://cb"], "post_logout_redirect_uris": "x://bye", "scopes": ["openid"]}]"#, "post_logout_redirect_uris"),
        (#"[{"client_id": "a", "redirect_uris": ["x://cb"], "scopes": ["openid"], "apple_audiences": [7]}]"#, "apple_audiences"),
        (#"[{"client_id": "a", "redirect_uris": ["x://cb"], "scopes": ["openid"], "apple_audiences": []}]"#, "apple_audiences"),
        (#"[{"client_id": "a", "redirect_uris": ["x://cb"], "scopes": ["openid"], "id_token_on_refresh": "no"}]"#, "id_token_on_refresh"),
        // RFC 8252 §7.3: plain http only to loopback.
        (#"[{"client_id": "a", "redirect_uris": ["http://app.example.com/cb"], "scopes": ["openid"]}]"#, "loopback"),
        (#"[{"client_id": "a", "redirect_uris": ["x://cb"], "post_logout_redirect_uris": ["http://10.0.0.1/bye"], "scopes": ["openid"]}]"#, "loopback"),
    ])
    func refused(_ json: String, _ mention: String) {
        do {
            _ = try ClientsFile.load(json)
            Issue.record("accepted: \(json)")
        } catch {
            #expect("\(error)".contains(mention), "\(error)")
        }
    }

    /// A misspelt restriction must not silently widen what a client may do: `apple_audience` for
    /// `apple_audiences` would leave the client every Apple audience.
    @Test("an unknown member is refused at start, naming the client and the member", arguments: [
        "apple_audience", "post_logout_redirect_uri", "allowed_orgins", "redirect_uri", "scope", "dpop_required", "logo_uri",
    ])
    func unknownMember(member: String) {
        let json = #"""
            [{"client_id": "ios", "redirect_uris": ["com.example.app:/cb"], "scopes": ["openid"]},
             {"client_id": "web", "redirect_uris": ["https://app.example/cb"], "scopes": ["openid"], "\#(member)": ["com.example.web"]}]
            """#
        do {
            _ = try ClientsFile.load(json)
            Issue.record("accepted \(member)")
        } catch {
            #expect("\(error)" == "entry 2 ('web') has an unknown member '\(member)'")
        }
    }

    @Test("dpop is optional by default, or required; any other value is refused (reference: DPoP)")
    func dpop() throws {
        let registry = try ClientsFile.load(#"""
            [{"client_id": "ios", "redirect_uris": ["com.example.app:/cb"], "scopes": ["openid"], "dpop": "required"},
             {"client_id": "web", "redirect_uris": ["https://app.example/cb"], "scopes": ["openid"], "dpop": "optional"},
             {"client_id": "old", "redirect_uris": ["https://old.example/cb"], "scopes": ["openid"]}]
            """#)
        #expect(registry.client(id: "ios")?.dpop == .required)
        #expect(registry.client(id: "web")?.dpop == .optional)
        #expect(registry.client(id: "old")?.dpop == .optional)
        for value in [#""always""#, "true", #""Required""#] {
            #expect(throws: (any Error).self, "\(value)") {
                try ClientsFile.load(#"[{"client_id": "a", "redirect_uris": ["x://cb"], "scopes": ["openid"], "dpop": "# + value + "}]")
            }
        }
    }

    @Test("client_name is read (for the sign-in pages); an empty one is refused")
    func clientName() throws {
        let registry = try ClientsFile.load(#"""
            [{"client_id": "web", "redirect_uris": ["https://app.example/cb"], "scopes": ["openid"], "client_name": "Clanboards"},
             {"client_id": "ios", "redirect_uris": ["com.example.app:/cb"], "scopes": ["openid"]}]
            """#)
        #expect(registry.client(id: "web")?.clientName == "Clanboards")
        #expect(registry.client(id: "ios")?.clientName == nil)
        #expect(throws: ClientRegistry.Problem.self) {
            try ClientsFile.load(#"[{"client_id": "web", "redirect_uris": ["x://cb"], "scopes": ["openid"], "client_name": " "}]"#)
        }
    }

    @Test("a file that is not strictly one JSON array of clients is refused, naming the client and the member", arguments: [
        (#"[{"client_id": "a", "redirect_uris": ["x://cb"], "scopes": ["openid"]},]"#, "line 1, column 72: a trailing comma before ']'"),
        (#"[{"client_id": "a", "redirect_uris": ["x://cb"], "scopes": ["openid"],}]"#, "a trailing comma before '}'"),
        (#"[{"client_id": "a", "redirect_uris": ["x://cb"], "scopes": ["openid"], "apple_audiences": ["com.example.web",]}]"#, "a trailing comma before ']'"),
        (#"{"client_id": "a", "redirect_uris": ["x://cb"], "scopes": ["openid"]}"#, "must be a JSON array of client objects, not an object"),
        (#"[{"client_id": "a", "redirect_uris": ["x://cb"], "scopes": ["openid"], "apple_audiences": ["com.example.web"], "apple_audiences": []}]"#,
         "entry 1 ('a') has the member 'apple_audiences' twice"),
        (#"[{"client_id": "a", "redirect_uris": ["x://cb"], "scopes": ["openid"], "apple_audiences": null}]"#, "entry 1 ('a'): apple_audiences is null"),
        (#"[{"client_id": "a", "redirect_uris": ["x://cb"], "scopes": ["openid"]}, {"client_id": "b", "redirect_uris": "x://b", "scopes": ["openid"]}]"#,
         "entry 2 ('b'): redirect_uris must be an array of strings"),
        (#"[{"client_id": "a", "redirect_uris": ["x://cb"], "scopes": ["openid"]}, {"redirect_uris": ["x://b"], "scopes": ["openid"]}]"#,
         "entry 2: client_id is missing"),
        (#"[{"client_id": "a", "redirect_uris": ["x://cb"], "scopes": ["openid"], "client_name": 7}]"#, "entry 1 ('a'): client_name must be a string"),
    ])
    func refusedNamingTheEntry(_ json: String, _ message: String) {
        do {
            _ = try ClientsFile.load(json)
            Issue.record("accepted: \(json)")
        } catch {
            #expect("\(error)".contains(message), "\(error)")
        }
    }

    @Test("http redirect URIs to a loopback address are accepted (RFC 8252 §7.3)", arguments: [
        "http://127.0.0.1:8000/cb", "http://localhost/cb", "http://[::1]:9000/cb",
    ])
    func loopbackHTTP(uri: String) throws {
        let registry = try ClientsFile.load(#"[{"client_id": "a", "redirect_uris": ["\#(uri)"], "scopes": ["openid"]}]"#)
        #expect(registry.client(id: "a")?.redirectURIs == [uri])
    }
}
