import Foundation
@testable import IssuerCore
import Logging
import Synchronization
import Testing
import TestSupport

/// The authorization code grant's decisions over a storage fake (docs/reference.md, "Hosted
/// sign-in"; RFC 6749 §4.1.2, §4.1.3; RFC 7636 §4.6): what it sends to storage and what it
/// answers. The statements are tested against PostgreSQL through the endpoint
/// (`AuthorizationCodeGrantTests`).
@Suite("Authorization code grant decisions, without a database (reference: Hosted sign-in)")
struct AuthorizationCodeGrantDecisionTests {
    final class Codes: AuthorizationCodeStoring {
        let redeemed: AuthorizationCodeGrant.Redeemed?
        private let asked = Mutex<(redeemed: [String], spent: Int)>(([], 0))
        var challenges: [String] { asked.withLock { $0.redeemed } }
        var spent: Int { asked.withLock { $0.spent } }

        init(_ redeemed: AuthorizationCodeGrant.Redeemed?) {
            self.redeemed = redeemed
        }

        func redeem(
            code: AuthorizationCode, clientID: String, redirectURI: String, codeChallenge: String, refreshToken: RefreshToken,
            refreshTokenExpiresAt: Date, now: Date, dpopThumbprint: String?
        ) async throws -> AuthorizationCodeGrant.Redeemed? {
            asked.withLock { $0.redeemed.append(codeChallenge) }
            return redeemed
        }

        func spendAndRevoke(code: AuthorizationCode, now: Date) async throws -> Bool {
            asked.withLock { $0.spent += 1 }
            return true
        }
    }

    static let verifier = String(repeating: "v", count: 43)
    static let clients = try! ClientRegistry(clients: [OAuthClient(clientID: "web", redirectURIs: ["https://app.example/cb"], scopes: ["openid"])])

    static func grant(_ codes: Codes, clock: ManualClock) -> AuthorizationCodeGrant {
        AuthorizationCodeGrant(
            store: codes, clients: clients, responder: TokenResponder(signer: TokenSigning.signer(clock), ring: { TokenSigning.ring }),
            clock: clock, refreshTokenTTL: .seconds(3600))
    }

    static func request(code: String = AuthorizationCode.generate().value, verifier: String = verifier) -> AuthorizationCodeGrant.Request {
        .init(code: code, redirectURI: "https://app.example/cb", clientID: "web", codeVerifier: verifier)
    }

    @Test("a redeemed code answers tokens for its session, the nonce in the ID token; the store got the verifier's S256 challenge")
    func redeemed() async throws {
        let clock = ManualClock(TokenSigning.start)
        let codes = Codes(.init(
            sessionID: UUID(), scopes: ["openid"], nonce: "n-1", authTime: clock.now, sessionExpiresAt: clock.now.addingTimeInterval(86_400),
            user: UserProfile(id: UUID(), email: nil, emailVerified: nil, givenName: nil, familyName: nil)))
        let answer = try await Self.grant(codes, clock: clock).redeem(Self.request(), logger: Logger(label: "test"))
        #expect(answer.refreshToken != nil && answer.idToken != nil)
        let claims = try TokenSigning.verifyAgainstJWKS(try #require(answer.idToken), at: clock.now).claims
        #expect(claims["nonce"] as? String == "n-1")
        #expect(codes.challenges == [PKCE.challenge(forVerifier: Self.verifier)])
        #expect(codes.spent == 0)
    }

    @Test("a code the store refuses is spent and its session revoked (RFC 6749 §4.1.2), answered invalid_grant")
    func refused() async throws {
        let codes = Codes(nil)
        await #expect(throws: OAuthError.self) {
            _ = try await Self.grant(codes, clock: ManualClock(TokenSigning.start)).redeem(Self.request(), logger: Logger(label: "test"))
        }
        #expect(codes.spent == 1)
    }

    @Test("a malformed code or verifier never reaches the store", arguments: [
        ("short", verifier), (AuthorizationCode.generate().value, "too-short-verifier"),
    ])
    func malformed(_ code: String, _ verifier: String) async throws {
        let codes = Codes(nil)
        do {
            _ = try await Self.grant(codes, clock: ManualClock(TokenSigning.start))
                .redeem(Self.request(code: code, verifier: verifier), logger: Logger(label: "test"))
            Issue.record("accepted")
        } catch {
            #expect(error.code == .invalidGrant)
        }
        #expect(codes.challenges.isEmpty && codes.spent == 0)
    }
}
