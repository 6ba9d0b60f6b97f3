import Foundation
@testable import IssuerCore
import Logging
import Synchronization
import Testing
import TestSupport

/// The native exchange over a connector kind defined only here (docs/design.md, "Connectors"):
/// a new provider kind signs a user in through `IdentityExchange` without an edit of it, and
/// what the exchange keeps (the client, storage, the answer) does not depend on which kind it is.
@Suite("Native credential connectors, without a database (reference: Native sign-in)")
struct NativeCredentialConnectorTests {
    /// Accepts one token as `corp`'s user `corp-1`, refuses any other, and records its hook's calls.
    final class CorpCredential: NativeCredentialConnector {
        let provider = IdentityProvider(name: "corp", issuer: "https://id.corp.example")
        let isConfigured: Bool
        private let kept = Mutex<[(UUID, String?)]>([])
        var signedInCalls: [(UUID, String?)] { kept.withLock { $0 } }

        init(isConfigured: Bool = true) {
            self.isConfigured = isConfigured
        }

        func identity(_ credential: NativeCredential, nonce: String?, for client: OAuthClient?) async throws(IdentityTokenError) -> ExternalIdentity {
            guard credential == .idToken("good-token") else { throw .rejected("not corp's") }
            return ExternalIdentity(provider: "corp", subject: "corp-1", audience: "corp-app")
        }

        func signedIn(userID: UUID, identity: ExternalIdentity, authorizationCode: String?, logger: Logger) async {
            kept.withLock { $0.append((userID, authorizationCode)) }
        }
    }

    let clock = ManualClock(TokenSigning.start)
    static let user = UserProfile(id: UUID(), email: nil, emailVerified: nil, givenName: nil, familyName: nil)

    func store() -> IdentityExchangeDecisionTests.Store {
        IdentityExchangeDecisionTests.Store { [clock] _ in
            SignIn(
                user: Self.user, sessionID: UUID(), authTime: clock.now, sessionExpiresAt: clock.now.addingTimeInterval(86_400),
                refreshToken: RefreshToken.generate())
        }
    }

    func run(_ connector: CorpCredential, _ store: IdentityExchangeDecisionTests.Store, token: String) async -> Result<TokenResponse, OAuthError> {
        let exchange = IdentityExchange(
            connector: connector,
            clients: try! ClientRegistry(clients: [
                OAuthClient(clientID: TokenSigning.audience, redirectURIs: ["app:/cb"], scopes: ["openid", "email"]),
            ]),
            store: store, responder: TokenResponder(signer: TokenSigning.signer(clock), ring: { TokenSigning.ring }))
        do {
            let request = IdentityExchange.Request(idToken: token, clientID: nil, authorizationCode: "one-time")
            return .success(try await exchange.exchange(request, style: .nativeSignIn, logger: Logger(label: "test")))
        } catch {
            return .failure(error)
        }
    }

    @Test("a connector kind defined only in the test signs its user in, and its hook gets the user and the app's code")
    func signsIn() async throws {
        let connector = CorpCredential()
        let store = store()
        let response = try await run(connector, store, token: "good-token").get()
        let asked = try #require(store.requests.first)
        #expect(asked.identity.provider == "corp")
        #expect(asked.identity.subject == "corp-1")
        #expect(asked.clientID == TokenSigning.audience)
        #expect(response.refreshToken != nil)
        #expect(connector.signedInCalls.map(\.0) == [Self.user.id])
        #expect(connector.signedInCalls.map(\.1) == ["one-time"])
    }

    @Test("its refusal is the native sign-in's invalid_grant, and one not configured answers 503; neither reaches storage nor the hook")
    func refusals() async throws {
        let connector = CorpCredential()
        let store = store()
        let refused = await run(connector, store, token: "other-token")
        #expect(refused.failure?.code == .invalidGrant)
        let unconfigured = await run(CorpCredential(isConfigured: false), store, token: "good-token")
        #expect(unconfigured.failure?.code == .temporarilyUnavailable)
        #expect(unconfigured.failure?.statusCode == 503)
        #expect(store.requests.isEmpty)
        #expect(connector.signedInCalls.isEmpty)
    }
}

extension Result {
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { error } else { nil }
    }
}
