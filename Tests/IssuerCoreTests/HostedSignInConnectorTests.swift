import Foundation
@testable import IssuerCore
import Logging
import Synchronization
import Testing
import TestSupport

/// The hosted flow over connectors (docs/design.md, "Connectors"; docs/reference.md, "Hosted
/// sign-in"), without HTTP or a database: a connector kind `HostedSignIn` has never heard of
/// joins the chooser and signs a user in through the shared steps (the sealed state bound to
/// its provider, spent once, the sign-in, the redirect with `iss`). The Apple and OIDC
/// connectors are tested over HTTP (`AppleCallbackEndpointTests`, `HostedProviderFlowTests`).
@Suite("Hosted flow connectors, without a database (reference: Hosted sign-in)")
struct HostedSignInConnectorTests {
    /// A third kind of provider, defined only here: its authorization URL carries the sealed
    /// state and our hashed nonce, and its callback proves an identity with `token`, which it
    /// accepts when it is `ok-` and the state's raw nonce.
    final class MagicLink: HostedFlowConnector {
        let id = "magic"
        var label: String { "Magic link" }
        var brand: ProviderBrand { .neutral }
        var responseMode: HostedFlowResponseMode { .query }
        /// Users handed to `signedIn`, in order.
        let signedInUsers = Mutex<[UUID]>([])

        func authorizationURL(sealedState: String, for state: AuthorizationState) async -> String? {
            RedirectURI.adding(
                [("state", sealedState), ("nonce", NoncePolicy.hashed(state.providerNonce))], to: "https://magic.example/authorize")
        }

        func identity(
            from parameters: [String: String], state: AuthorizationState, client: OAuthClient, logger: Logger
        ) async throws(HostedFlowFailure) -> HostedFlowIdentity {
            guard parameters["token"] == "ok-" + state.providerNonce else {
                throw .refused(.accessDenied, description: "The magic link was not accepted.", reason: "magic token mismatch")
            }
            return HostedFlowIdentity(
                ExternalIdentity(provider: id, subject: "magic-user-1", audience: "issuer", email: "m@example.com", emailVerified: true),
                givenName: "Grace", familyName: "Hopper")
        }

        func signedIn(userID: UUID, parameters: [String: String], logger: Logger) async {
            signedInUsers.withLock { $0.append(userID) }
        }
    }

    let clock = ManualClock()
    let logger = Logger(label: "test")
    let events = RecordingAccountEvents()
    let magic = MagicLink()
    let store: FakeHostedSignInStore
    let clients = try! ClientRegistry(clients: [
        OAuthClient(clientID: "app", redirectURIs: ["app:/cb"], scopes: ["openid", "email", "profile"]),
    ])

    init() {
        store = FakeHostedSignInStore(clock: clock)
    }

    static let issuer = "https://issuer.example"

    /// `HostedSignIn` with Apple first, as the composition root builds it, then `connectors`.
    func hostedSignIn(_ connectors: [any HostedFlowConnector]) throws -> HostedSignIn {
        let keys = RemoteJWKSCache(
            url: URL(string: "https://appleid.apple.com/auth/keys")!, fetcher: StubJWKSFetcher(serving: try FakeAppleKeys()), clock: clock)
        let apple = AppleHostedFlow(
            servicesID: "com.example.web", authorizeURL: "https://appleid.apple.com/auth/authorize",
            callbackURL: Self.issuer + "/auth/apple/callback",
            verifier: IdentityTokenVerifier(provider: .apple, keys: keys, clock: clock))
        return HostedSignIn(
            connectors: [apple] + connectors, issuer: Self.issuer, clients: clients,
            sealer: AuthorizationStateSealer(secret: ServerSecret(bytes: Array(repeating: 5, count: 32)), clock: clock),
            store: store, clock: clock, events: events)
    }

    static let authorization = [
        "response_type": "code", "client_id": "app", "redirect_uri": "app:/cb", "scope": "openid email",
        "state": "client-state", "code_challenge": PKCE.challenge(forVerifier: String(repeating: "v", count: 43)),
        "code_challenge_method": "S256",
    ]

    static func query(_ url: String) -> [String: String] {
        (URLComponents(string: url)?.queryItems ?? []).reduce(into: [:]) { $0[$1.name] = $1.value }
    }

    /// The chooser's choices for `flow`.
    func choices(_ flow: HostedSignIn) async throws -> [HostedSignIn.Choice] {
        guard case .choose(let choices, let client) = await flow.authorize(Self.authorization, repeated: []) else {
            Issue.record("no chooser")
            return []
        }
        #expect(client.clientID == "app")
        return choices
    }

    @Test("a connector kind HostedSignIn does not know is on the sign-in page after Apple and signs the user in through the shared steps")
    func thirdKindSignsIn() async throws {
        let flow = try hostedSignIn([magic])
        let choices = try await choices(flow)
        #expect(choices.map(\.label) == ["Apple", "Magic link"])
        #expect(choices.map(\.brand) == [.apple, .neutral])
        let link = try #require(choices.last?.url)
        #expect(link.hasPrefix("https://magic.example/authorize?"))
        let sealed = try #require(Self.query(link)["state"])
        let opened = try AuthorizationStateSealer(secret: ServerSecret(bytes: Array(repeating: 5, count: 32)), clock: clock).open(sealed)
        #expect(opened.provider == "magic")
        #expect(Self.query(link)["nonce"] == NoncePolicy.hashed(opened.providerNonce))

        let back = await flow.callback(
            "magic", responseMode: .query, parameters: ["state": sealed, "token": "ok-" + opened.providerNonce],
            userAgent: "Tests/1.0", clientIP: "192.0.2.1", logger: logger)
        guard case .redirect(let location) = back else {
            Issue.record("not redirected: \(back)")
            return
        }
        let answer = Self.query(location)
        #expect(location.hasPrefix("app:/cb?"))
        #expect(answer["code"] != nil)
        #expect(answer["state"] == "client-state")
        #expect(answer["iss"] == Self.issuer)
        let asked = try #require(store.requests.first)
        #expect(store.requests.count == 1)
        #expect(asked.identity.provider == "magic")
        #expect(asked.identity.subject == "magic-user-1")
        #expect(asked.givenName == "Grace")
        #expect(asked.familyName == "Hopper")
        #expect(asked.clientID == "app")
        #expect(asked.userAgent == "Tests/1.0")
        #expect(magic.signedInUsers.withLock { $0.count } == 1)
        #expect(events.events == ["sign_in:magic:hosted:success"])

        // The state is spent: the same callback again is a plain page, never a second sign-in.
        let replay = await flow.callback(
            "magic", responseMode: .query, parameters: ["state": sealed, "token": "ok-" + opened.providerNonce],
            userAgent: nil, clientIP: nil, logger: logger)
        #expect(replay == HostedSignIn.alreadyUsed)
        #expect(store.requests.count == 1)
        #expect(magic.signedInUsers.withLock { $0.count } == 1)
    }

    @Test("provider= names the new kind and goes straight there; its refusal reaches the client as its RFC 6749 error")
    func thirdKindRefuses() async throws {
        let flow = try hostedSignIn([magic])
        var parameters = Self.authorization
        parameters["provider"] = "magic"
        guard case .redirect(let link) = await flow.authorize(parameters, repeated: []) else {
            Issue.record("not sent to the connector")
            return
        }
        #expect(link.hasPrefix("https://magic.example/authorize?"))
        let sealed = try #require(Self.query(link)["state"])
        let back = await flow.callback(
            "magic", responseMode: .query, parameters: ["state": sealed, "token": "forged"], userAgent: nil, clientIP: nil,
            logger: logger)
        guard case .redirect(let location) = back else {
            Issue.record("not redirected: \(back)")
            return
        }
        let answer = Self.query(location)
        #expect(answer["error"] == "access_denied")
        #expect(answer["error_description"] == "The magic link was not accepted.")
        #expect(answer["state"] == "client-state")
        #expect(answer["iss"] == Self.issuer)
        #expect(answer["code"] == nil)
        #expect(store.requests.isEmpty)
        #expect(events.events == ["sign_in:magic:hosted:access_denied"])
    }

    @Test("a state reaches only the connector it was sealed for, by that connector's response mode")
    func stateBoundToItsConnector() async throws {
        let flow = try hostedSignIn([magic])
        let choices = try await choices(flow)
        let appleLink = try #require(choices.first?.url)
        let appleState = try #require(Self.query(appleLink)["state"])
        let atMagic = await flow.callback(
            "magic", responseMode: .query, parameters: ["state": appleState, "token": "x"], userAgent: nil, clientIP: nil,
            logger: logger)
        #expect(atMagic == HostedSignIn.invalidState)
        let magicLink = try #require(choices.last?.url)
        let magicState = try #require(Self.query(magicLink)["state"])
        let posted = await flow.callback(
            "magic", responseMode: .formPost, parameters: ["state": magicState], userAgent: nil, clientIP: nil, logger: logger)
        #expect(posted == HostedSignIn.notConfigured)
        let unknown = await flow.callback(
            "other", responseMode: .query, parameters: ["state": magicState], userAgent: nil, clientIP: nil, logger: logger)
        #expect(unknown == .page(status: 404, message: PageMessage(.providerUnknown)))
        #expect(store.requests.isEmpty)
    }
}
