import Foundation
@testable import IssuerCore
import Logging
import Postgres
import Synchronization
import Testing
import TestSupport

/// The native exchange's decisions over a storage fake (docs/reference.md, "Native sign-in"):
/// what reaches storage, and what each answer of storage becomes. The sign-in statement itself is
/// tested against PostgreSQL (`SignInStoringContractTests`), and the whole path over HTTP
/// (`AppleExchangeEndpointTests`).
@Suite("Native exchange decisions, without a database (reference: Native sign-in)")
struct IdentityExchangeDecisionTests {
    /// Records every sign-in asked of it and answers with `answer`.
    final class Store: SignInStoring {
        let answer: @Sendable (SignInRequest) throws -> SignIn
        private let asked = Mutex<[SignInRequest]>([])
        var requests: [SignInRequest] { asked.withLock { $0 } }

        init(_ answer: @escaping @Sendable (SignInRequest) throws -> SignIn) {
            self.answer = answer
        }

        func signIn(_ request: SignInRequest) async throws -> SignIn {
            asked.withLock { $0.append(request) }
            return try answer(request)
        }
    }

    let apple: FakeAppleKeys
    let clock = ManualClock(TokenSigning.start)

    init() throws {
        apple = try FakeAppleKeys()
    }

    static let user = UserProfile(id: UUID(), email: "a@example.com", emailVerified: true, givenName: nil, familyName: nil)

    func signedIn(_ request: SignInRequest) -> SignIn {
        SignIn(
            user: Self.user, sessionID: UUID(), authTime: clock.now, sessionExpiresAt: clock.now.addingTimeInterval(86_400),
            refreshToken: RefreshToken.generate())
    }

    func exchange(_ store: Store) -> IdentityExchange {
        let keys = RemoteJWKSCache(
            url: URL(string: "https://appleid.apple.com/auth/keys")!, fetcher: StubJWKSFetcher(serving: apple), clock: clock)
        return IdentityExchange(
            connector: OIDCNativeCredential(
                verifier: IdentityTokenVerifier(provider: .apple, keys: keys, clock: clock), audiences: ["com.example.app"],
                noncePolicy: NoncePolicy(required: false, acceptUnhashed: false)),
            clients: try! ClientRegistry(clients: [
                OAuthClient(clientID: TokenSigning.audience, redirectURIs: ["app:/cb"], scopes: ["openid", "email"]),
            ]),
            store: store, responder: TokenResponder(signer: TokenSigning.signer(clock), ring: { TokenSigning.ring }))
    }

    func run(_ exchange: IdentityExchange, _ token: String, clientID: String? = nil) async -> Result<TokenResponse, OAuthError> {
        do {
            let request = IdentityExchange.Request(idToken: token, clientID: clientID, givenName: "Ada")
            return .success(try await exchange.exchange(request, style: .nativeSignIn, logger: Logger(label: "test")))
        } catch {
            return .failure(error)
        }
    }

    @Test("storage is asked for the verified subject, audience and e-mail, and its user is the token's sub")
    func verifiedIdentityReachesStorage() async throws {
        let store = Store { [self] in signedIn($0) }
        let token = try apple.identityToken(subject: "000111.verified", issuedAt: clock.now, email: "v@privaterelay.appleid.com")
        let response = try await run(exchange(store), token).get()
        let asked = try #require(store.requests.first)
        #expect(store.requests.count == 1)
        #expect(asked.identity.provider == "apple")
        #expect(asked.identity.subject == "000111.verified")
        #expect(asked.identity.audience == "com.example.app")
        #expect(asked.identity.email == "v@privaterelay.appleid.com")
        #expect(asked.clientID == TokenSigning.audience)
        #expect(asked.givenName == "Ada")
        let claims = try TokenSigning.verifyAgainstJWKS(response.accessToken, at: clock.now).claims
        #expect(claims["sub"] as? String == Self.user.subject)
        #expect(response.refreshToken != nil)
    }

    @Test("a token that fails a check, or names an unknown client, never reaches storage", arguments: [
        "forged", "expired", "other audience", "unknown client",
    ])
    func refusedBeforeStorage(case name: String) async throws {
        let store = Store { [self] in signedIn($0) }
        let other = try FakeAppleKeys()
        let (token, clientID): (String, String?) = switch name {
        case "forged": (try other.identityToken(issuedAt: clock.now, header: ["alg": "RS256", "kid": apple.currentKid]), nil)
        case "expired": (try apple.identityToken(issuedAt: clock.now.addingTimeInterval(-3_600)), nil)
        case "other audience": (try apple.identityToken(audience: "com.evil.app", issuedAt: clock.now), nil)
        default: (try apple.identityToken(issuedAt: clock.now), "nobody")
        }
        guard case .failure(let error) = await run(exchange(store), token, clientID: clientID) else {
            Issue.record("\(name) was accepted")
            return
        }
        #expect([.invalidGrant, .invalidClient].contains(error.code), "\(name): \(error.code)")
        #expect(store.requests.isEmpty)
    }

    @Test("storage's answers: a disabled identity is 400 invalid_grant, an unreachable database 503, any other failure 500 without detail")
    func storageAnswers() async throws {
        let token = { [self] in try apple.identityToken(issuedAt: clock.now) }
        let disabled = try await run(exchange(Store { _ in throw IdentityDisabled() }), token())
        #expect(disabled.failure?.code == .invalidGrant)
        #expect(disabled.failure?.statusCode == 400)
        #expect(disabled.failure?.description == IdentityDisabled.description)
        let down = try await run(exchange(Store { _ in throw PostgresError.unavailable("gone") }), token())
        #expect(down.failure?.code == .temporarilyUnavailable)
        #expect(down.failure?.statusCode == 503)
        let broken = try await run(exchange(Store { _ in throw PostgresError.server(sqlState: SQLState(rawValue: "XX000"), message: "secret detail") }), token())
        #expect(broken.failure?.code == .serverError)
        #expect(broken.failure?.description.contains("secret detail") == false)
    }
}

extension Result {
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
