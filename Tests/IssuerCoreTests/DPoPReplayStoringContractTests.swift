import Foundation
@testable import IssuerCore
import IssuerStorage
import Postgres
import Testing
import TestSupport

/// The `jti` memory's one statement (docs/reference.md, "DPoP"): a proof is recorded once; the
/// identical proof passes again only as a refresh's retry within the grace; a row outlives the
/// proof's lifetime only until it is replaced. The contract of `DPoPReplayStoring`, held by
/// `DPoPReplayStore` over PostgreSQL and by `InMemoryDPoPReplayStore` alike (`StoreBackend`).
@Suite("DPoP jti memory contract, PostgreSQL and in memory (reference: DPoP)")
struct DPoPReplayStoringContractTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// Runs `body` with the store of `backend`, `poolSize` connections for PostgreSQL's.
    static func withStore(
        _ backend: StoreBackend, poolSize: Int = 4, _ body: (any DPoPReplayStoring) async throws -> Void
    ) async throws {
        switch backend {
        case .postgres: try await TestCluster.withMigratedPool(size: poolSize) { try await body(DPoPReplayStore(pool: $0)) }
        case .memory: try await body(InMemoryDPoPReplayStore())
        }
    }

    static func proof(jkt: String = "key-a", jti: String = UUID().uuidString, hash: UInt8 = 1, issuedAt: Date = now) -> DPoPProof {
        DPoPProof(
            thumbprint: jkt, jwtID: jti, issuedAt: issuedAt, accessTokenHash: nil, nonce: nil,
            proofHash: Array(repeating: hash, count: 32))
    }

    @Test("fresh, then a replay; the same jti under another key is another proof", arguments: StoreBackend.allCases)
    func freshThenReplay(backend: StoreBackend) async throws {
        try await Self.withStore(backend) { store in
            let proof = Self.proof(jti: "j")
            let accepted1 = try await store.record(proof, now: Self.now, resendSince: nil)
            #expect(accepted1)
            let accepted2 = try await store.record(proof, now: Self.now, resendSince: nil)
            #expect(!accepted2, "no resend allowed: a replay")
            let accepted3 = try await store.record(Self.proof(jti: "j", hash: 2), now: Self.now, resendSince: Self.now.addingTimeInterval(-10))
            #expect(!accepted3,
                    "another proof with the jti is a replay even where a resend is allowed")
            let accepted4 = try await store.record(Self.proof(jkt: "key-b", jti: "j"), now: Self.now, resendSince: nil)
            #expect(accepted4)
        }
    }

    @Test("the identical proof again: accepted only while first seen within the grace", arguments: StoreBackend.allCases)
    func identicalResend(backend: StoreBackend) async throws {
        try await Self.withStore(backend) { store in
            let proof = Self.proof(jti: "r")
            let accepted5 = try await store.record(proof, now: Self.now, resendSince: nil)
            #expect(accepted5)
            let later = Self.now.addingTimeInterval(5)
            let accepted6 = try await store.record(proof, now: later, resendSince: later.addingTimeInterval(-10))
            #expect(accepted6)
            let tooLate = Self.now.addingTimeInterval(11)
            let accepted7 = try await store.record(proof, now: tooLate, resendSince: tooLate.addingTimeInterval(-10))
            #expect(!accepted7,
                    "the grace runs from the first sight, not from the last resend")
        }
    }

    @Test("a row past the proof's lifetime is replaced: the memory covers only what could still be accepted", arguments: StoreBackend.allCases)
    func expiredRowReplaced(backend: StoreBackend) async throws {
        try await Self.withStore(backend) { store in
            let accepted8 = try await store.record(Self.proof(jti: "old"), now: Self.now, resendSince: nil)
            #expect(accepted8)
            let muchLater = Self.now.addingTimeInterval(300)
            let accepted9 = try await store.record(Self.proof(jti: "old", hash: 3, issuedAt: muchLater), now: muchLater, resendSince: nil)
            #expect(accepted9)
            let accepted10 = try await store.record(Self.proof(jti: "old", hash: 4, issuedAt: muchLater), now: muchLater, resendSince: nil)
            #expect(!accepted10)
        }
    }

    @Test("a jti is remembered until the proof's iat + the window + 1 s, and replaced only after", arguments: StoreBackend.allCases)
    func rememberedToTheWindowsEnd(backend: StoreBackend) async throws {
        try await Self.withStore(backend) { store in
            let accepted = try await store.record(Self.proof(jti: "edge"), now: Self.now, resendSince: nil)
            #expect(accepted)
            let end = Self.now.addingTimeInterval(DPoPProofVerifier.window + 1)
            let atTheEnd = try await store.record(Self.proof(jti: "edge", hash: 5), now: end, resendSince: nil)
            #expect(!atTheEnd, "still remembered at its last instant")
            let past = end.addingTimeInterval(0.5)
            let afterTheEnd = try await store.record(Self.proof(jti: "edge", hash: 6, issuedAt: past), now: past, resendSince: nil)
            #expect(afterTheEnd, "forgotten once no proof with that iat could be accepted")
        }
    }

    @Test("16 concurrent records of one proof: exactly one is fresh", arguments: StoreBackend.allCases)
    func concurrent(backend: StoreBackend) async throws {
        try await Self.withStore(backend, poolSize: 8) { store in
            let proof = Self.proof(jti: "race")
            let accepted = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<16 { group.addTask { try await store.record(proof, now: Self.now, resendSince: nil) } }
                return try await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
            }
            #expect(accepted == 1)
        }
    }
}
