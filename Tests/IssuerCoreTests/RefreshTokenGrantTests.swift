import Crypto
import Foundation
@testable import IssuerCore
import Logging
import Postgres
import Synchronization
import Testing
import TestSupport

/// The refresh grant's decisions over a storage fake (docs/reference.md, "Refresh tokens and
/// sessions"): what each answer of the rotation statement becomes, and what the grant then asks
/// of storage. The statement itself is tested against PostgreSQL (`RefreshRotationStoringContractTests`),
/// and the whole path over HTTP (`RefreshGrantTests`).
@Suite("Refresh grant decisions, without a database (reference: Refresh tokens and sessions)")
struct RefreshTokenGrantTests {
    /// Answers the rotation with `answer` and records what the grant asked.
    final class Stores: RefreshRotationStoring {
        let answer: @Sendable (_ successorHash: [UInt8]) throws -> RefreshRecord?
        private let asked = Mutex<(rotations: Int, revoked: [UUID])>((0, []))
        var rotations: Int { asked.withLock { $0.rotations } }
        var revoked: [UUID] { asked.withLock { $0.revoked } }

        init(_ answer: @escaping @Sendable (_ successorHash: [UInt8]) throws -> RefreshRecord?) {
            self.answer = answer
        }

        func rotate(
            tokenHash: [UInt8], successorHash: [UInt8], clientID: String, requestedScopes: [String]?, now: Date,
            successorExpiresAt: Date, dpopThumbprint: String?, dpopProof: DPoPProof?, resendSince: Date?
        ) async throws -> RefreshRecord? {
            asked.withLock { $0.rotations += 1 }
            return try answer(successorHash)
        }

        func revokeSession(_ sessionID: UUID, reason: String, at now: Date) async throws {
            asked.withLock { $0.revoked.append(sessionID) }
        }
    }

    static let secret = ServerSecret(bytes: Array(repeating: 9, count: 32))
    static let grace: Duration = .seconds(10)
    static let clients = try! ClientRegistry(clients: [
        OAuthClient(clientID: "app", redirectURIs: ["app:/cb"], scopes: ["openid", "email"]),
        OAuthClient(clientID: "lean", redirectURIs: ["lean:/cb"], scopes: ["openid", "email"], idTokenOnRefresh: false),
    ])

    static func record(_ verdict: RefreshVerdict, clock: ManualClock, _ change: (inout RefreshRecord) -> Void = { _ in }) -> RefreshRecord {
        var record = RefreshRecord(
            verdict: verdict, sessionID: UUID(), generation: 1, spentAt: nil, successorHash: nil, scopes: ["openid", "email"],
            authTime: clock.now.addingTimeInterval(-60), sessionExpiresAt: clock.now.addingTimeInterval(86_400),
            user: UserProfile(id: UUID(), email: "a@example.com", emailVerified: true, givenName: nil, familyName: nil))
        change(&record)
        return record
    }

    static func grant(_ stores: Stores, clock: ManualClock, events: any AccountEvents = UncountedAccountEvents()) -> RefreshTokenGrant {
        let responder = TokenResponder(signer: TokenSigning.signer(clock), ring: { TokenSigning.ring })
        return RefreshTokenGrant(
            stores: stores, clients: clients, secret: secret, responder: responder, clock: clock,
            refreshTokenTTL: .seconds(3600), grace: grace, events: events)
    }

    /// The successor the grant derives for `token`, as a retry must be answered with it.
    static func successor(of token: RefreshToken) -> RefreshToken {
        token.successor(key: SymmetricKey(data: RefreshToken.successorKey(from: secret)))
    }

    static func refuse(_ grant: RefreshTokenGrant, _ request: RefreshTokenGrant.Request) async -> OAuthError? {
        do {
            _ = try await grant.refresh(request, logger: Logger(label: "test"))
            return nil
        } catch {
            return error
        }
    }

    @Test("a rotation answers the derived successor and both tokens; a lean client gets no ID token")
    func rotated() async throws {
        let clock = ManualClock(TokenSigning.start)
        let presented = RefreshToken.generate()
        let stores = Stores { _ in Self.record(.rotated, clock: clock) }
        let grant = Self.grant(stores, clock: clock)
        let answer = try await grant.refresh(.init(refreshToken: presented.value, clientID: "app"), logger: Logger(label: "test"))
        #expect(answer.refreshToken == Self.successor(of: presented).value)
        #expect(answer.idToken != nil, "openid in scope: two signatures")
        let lean = try await grant.refresh(.init(refreshToken: presented.value, clientID: "lean"), logger: Logger(label: "test"))
        #expect(lean.idToken == nil, "id_token_on_refresh false: one signature")
        #expect(!lean.accessToken.isEmpty && lean.refreshToken == answer.refreshToken)
        #expect(stores.revoked.isEmpty)
    }

    @Test("a spent token within the grace whose successor is the derived one is a retry: the same successor, nothing revoked")
    func retry() async throws {
        let clock = ManualClock(TokenSigning.start)
        let presented = RefreshToken.generate()
        let stores = Stores { successorHash in
            Self.record(.spent, clock: clock) { $0.spentAt = clock.now.addingTimeInterval(-5); $0.successorHash = successorHash }
        }
        let answer = try await Self.grant(stores, clock: clock).refresh(
            .init(refreshToken: presented.value, clientID: "app"), logger: Logger(label: "test"))
        #expect(answer.refreshToken == Self.successor(of: presented).value)
        #expect(stores.revoked.isEmpty)
    }

    @Test("a spent token after the grace is theft, whatever client or scope the request names: its session is revoked, counted, and the answer is invalid_grant", arguments: [
        RefreshVerdict.spent, .anotherClient, .scopeNotGranted,
    ])
    func reuse(verdict: RefreshVerdict) async throws {
        let clock = ManualClock(TokenSigning.start)
        let presented = RefreshToken.generate()
        // Its own successor, so only the time past the grace makes it theft.
        let successor = Self.successor(of: presented)
        let record = Self.record(verdict, clock: clock) { $0.spentAt = clock.now.addingTimeInterval(-11); $0.successorHash = successor.hash }
        let stores = Stores { _ in record }
        let events = RecordingAccountEvents()
        let error = await Self.refuse(
            Self.grant(stores, clock: clock, events: events),
            .init(refreshToken: presented.value, clientID: "app", scope: "openid email"))
        #expect(error?.code == .invalidGrant)
        #expect(stores.revoked == [record.sessionID])
        #expect(events.events == ["refresh_reuse"])
    }

    @Test("within the grace, a spent token with another client or a wider scope is only refused: nothing revoked", arguments: [
        RefreshVerdict.anotherClient, .scopeNotGranted,
    ])
    func mistakeWithinGrace(verdict: RefreshVerdict) async throws {
        let clock = ManualClock(TokenSigning.start)
        let presented = RefreshToken.generate()
        let successor = Self.successor(of: presented)
        let record = Self.record(verdict, clock: clock) { $0.spentAt = clock.now.addingTimeInterval(-5); $0.successorHash = successor.hash }
        let stores = Stores { _ in record }
        let error = await Self.refuse(
            Self.grant(stores, clock: clock), .init(refreshToken: presented.value, clientID: "app", scope: "openid email"))
        #expect(error?.code == (verdict == .anotherClient ? .invalidGrant : .invalidScope))
        #expect(stores.revoked.isEmpty)
    }

    struct Refusal: Sendable, CustomTestStringConvertible {
        let name: String
        let verdict: RefreshVerdict?
        let token: String?
        let code: OAuthError.Code
        let reachesStore: Bool
        var testDescription: String { name }
    }

    @Test("refusals change nothing: no revocation, the RFC 6749 error of each", arguments: [
        Refusal(name: "unknown token", verdict: nil, token: nil, code: .invalidGrant, reachesStore: true),
        Refusal(name: "another client's", verdict: .anotherClient, token: nil, code: .invalidGrant, reachesStore: true),
        Refusal(name: "a wider scope", verdict: .scopeNotGranted, token: nil, code: .invalidScope, reachesStore: true),
        Refusal(name: "a revoked session", verdict: .revoked, token: nil, code: .invalidGrant, reachesStore: true),
        Refusal(name: "an expired token", verdict: .expired, token: nil, code: .invalidGrant, reachesStore: true),
        Refusal(name: "a malformed token", verdict: .rotated, token: "short", code: .invalidGrant, reachesStore: false),
    ])
    func refusals(_ refusal: Refusal) async throws {
        let clock = ManualClock(TokenSigning.start)
        let stores = Stores { _ in refusal.verdict.map { Self.record($0, clock: clock) } }
        let error = await Self.refuse(
            Self.grant(stores, clock: clock), .init(refreshToken: refusal.token ?? RefreshToken.generate().value, clientID: "app"))
        #expect(error?.code == refusal.code)
        #expect(stores.rotations == (refusal.reachesStore ? 1 : 0))
        #expect(stores.revoked.isEmpty)
    }

    @Test("a database outage is temporarily_unavailable, never a 5xx of the client's making")
    func outage() async throws {
        let clock = ManualClock(TokenSigning.start)
        let stores = Stores { _ in throw PostgresError.unavailable("down") }
        let error = await Self.refuse(Self.grant(stores, clock: clock), .init(refreshToken: RefreshToken.generate().value, clientID: "app"))
        #expect(error?.code == .temporarilyUnavailable)
    }
}
