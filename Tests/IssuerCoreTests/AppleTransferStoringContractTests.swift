import Foundation
@testable import IssuerCore
@testable import IssuerStorage
import Postgres
import Synchronization
import Testing
import TestSupport

/// An Apple team transfer (docs/reference.md, "Apple team transfer"; `AppleTeamTransfer`): the Apple
/// identities by stage, paged by cursor so an interrupted run resumes, the transfer identifier stored
/// beside each, and the re-keying to the receiving team's `sub`, which keeps the user and never takes
/// a `sub` another identity has. The contract of `AppleTransferStoring`, held by `AppleTransferStore`
/// over PostgreSQL (no in-memory store exists).
@Suite("Apple team transfer storage contract, PostgreSQL (reference: Apple team transfer)")
struct AppleTransferStoringContractTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func signIn(_ pool: ConnectionPool, _ request: SignInRequest) async throws -> SignIn {
        try await SignInStore(pool: pool, clock: ManualClock(now), refreshTokenTTL: .seconds(3600), sessionMaxAge: .seconds(7200))
            .signIn(request)
    }

    /// An Apple sign-in of `subject` for the app `audience`.
    static func signIn(
        _ pool: ConnectionPool, subject: String, audience: String = "com.example.app", email: String? = "a@example.com"
    ) async throws -> SignIn {
        var request = SampleSignIn.request(subject: subject, email: email)
        request.identity.audience = audience
        return try await signIn(pool, request)
    }

    static func subjects(_ page: [(subject: String, clientID: String)]) -> [String] {
        page.map { "\($0.subject) \($0.clientID)" }
    }

    static func transferSubs(_ page: [(transferSub: String, clientID: String)]) -> [String] {
        page.map { "\($0.transferSub) \($0.clientID)" }
    }

    /// The Apple identity now keyed by `subject`: its user, its e-mail, when it was re-keyed.
    static func identity(_ pool: ConnectionPool, _ subject: String) async throws -> (userID: UUID, email: String?, rekeyedAt: Date?)? {
        guard let row = try await pool.query(
            "SELECT user_id, email, rekeyed_at FROM identities WHERE provider = 'apple' AND subject = $1", [subject]).single
        else { return nil }
        let userID = try row.decode(UUID.self, column: "user_id")
        let email = try row.decodeIfPresent(String.self, column: "email")
        let rekeyedAt = try row.decodeIfPresent(Date.self, column: "rekeyed_at")
        return (userID, email, rekeyedAt)
    }

    static func userEmail(_ pool: ConnectionPool, _ userID: UUID) async throws -> String? {
        try await pool.query("SELECT email FROM users WHERE id = $1", [userID]).single?.decodeIfPresent(String.self, column: "email")
    }

    @Test("notExported pages Apple identities in subject order after the cursor, at most the limit; an export moves one to notRekeyed")
    func pagesByStage() async throws {
        try await TestCluster.withMigratedPool(size: 4) { pool in
            let store = AppleTransferStore(pool: pool)
            for subject in ["t.3", "t.1", "t.5", "t.2"] { _ = try await Self.signIn(pool, subject: subject) }
            _ = try await Self.signIn(pool, subject: "t.4", audience: "com.example.web")
            // Another provider's identity, whose subject sorts among Apple's: never part of the transfer.
            let google = ExternalIdentity(provider: "google", subject: "t.25", audience: "web")
            _ = try await Self.signIn(pool, SignInRequest(identity: google, clientID: "clanboards-mobile", scopes: ["openid"]))

            let fresh = try await store.stages()
            #expect(fresh == AppleTeamTransfer.Stages(notExported: 5, exported: 0, rekeyed: 0))
            let first = try await store.notExported(after: "", limit: 2)
            #expect(Self.subjects(first) == ["t.1 com.example.app", "t.2 com.example.app"])
            let second = try await store.notExported(after: "t.2", limit: 2)
            #expect(Self.subjects(second) == ["t.3 com.example.app", "t.4 com.example.web"])
            let third = try await store.notExported(after: "t.4", limit: 2)
            #expect(Self.subjects(third) == ["t.5 com.example.app"])
            let past = try await store.notExported(after: "t.5", limit: 2)
            #expect(past.isEmpty)
            let nothingExported = try await store.notRekeyed(after: "", limit: 10)
            #expect(nothingExported.isEmpty)

            try await store.recordExport(subject: "t.4", transferSub: "x.4", target: "TEAM2")
            try await store.recordExport(subject: "t.2", transferSub: "x.2", target: "TEAM2")
            try await store.recordExport(subject: "t.25", transferSub: "x.25", target: "TEAM2")
            let left = try await store.notExported(after: "", limit: 10)
            #expect(Self.subjects(left) == ["t.1 com.example.app", "t.3 com.example.app", "t.5 com.example.app"])
            let exported = try await store.notRekeyed(after: "", limit: 10)
            #expect(Self.transferSubs(exported) == ["x.2 com.example.app", "x.4 com.example.web"], "Google's identity is not Apple's")
            let paged = try await store.notRekeyed(after: "x.2", limit: 1)
            #expect(Self.transferSubs(paged) == ["x.4 com.example.web"])
            let stages = try await store.stages()
            #expect(stages == AppleTeamTransfer.Stages(notExported: 3, exported: 2, rekeyed: 0))
            let target = try await pool.query("SELECT transfer_target FROM identities WHERE provider = 'apple' AND subject = 't.2'").single?
                .decodeIfPresent(String.self, column: "transfer_target")
            #expect(target == "TEAM2")
            let googleExport = try await pool.query("SELECT transfer_sub FROM identities WHERE provider = 'google'").single?
                .decodeIfPresent(String.self, column: "transfer_sub")
            #expect(googleExport == nil)
        }
    }

    @Test("rekey moves an exported identity to its new sub and address, user and relay e-mail following; false if unknown, done or taken")
    func rekey() async throws {
        try await TestCluster.withMigratedPool(size: 4) { pool in
            let store = AppleTransferStore(pool: pool)
            let relayed = try await Self.signIn(pool, subject: "old.a", email: "a@privaterelay.appleid.com")
            let own = try await Self.signIn(pool, subject: "old.b", email: "b@privaterelay.appleid.com")
            let blocked = try await Self.signIn(pool, subject: "old.c", email: "c@privaterelay.appleid.com")
            // The second user's own e-mail is Google's, from a sign-in with a linked Google identity.
            let google = ExternalIdentity(provider: "google", subject: "g-b", audience: "web", email: "b@example.com", emailVerified: true)
            let identities = AccountIdentitiesStore(pool: pool)
            let linked = try await identities.link(google, userID: own.user.id, sessionID: own.sessionID, now: Self.now)
            #expect(linked == .linked)
            let viaGoogle = try await Self.signIn(pool, SignInRequest(identity: google, clientID: "clanboards-mobile", scopes: ["openid"]))
            #expect(viaGoogle.user.id == own.user.id)
            let ownEmail = try await Self.userEmail(pool, own.user.id)
            #expect(ownEmail == "b@example.com")
            for (subject, transferSub) in [("old.a", "x.a"), ("old.b", "x.b"), ("old.c", "x.c")] {
                try await store.recordExport(subject: subject, transferSub: transferSub, target: "TEAM2")
            }
            let later = Self.now + 60

            let movedA = try await store.rekey(transferSub: "x.a", to: "new.a", email: "a2@privaterelay.appleid.com", now: later)
            #expect(movedA)
            let newA = try await Self.identity(pool, "new.a")
            #expect(newA?.userID == relayed.user.id)
            #expect(newA?.email == "a2@privaterelay.appleid.com")
            #expect(newA?.rekeyedAt == later)
            let oldA = try await Self.identity(pool, "old.a")?.userID
            #expect(oldA == nil, "one identity, re-keyed: the old sub is gone")
            let relayedEmail = try await Self.userEmail(pool, relayed.user.id)
            #expect(relayedEmail == "a2@privaterelay.appleid.com", "the old relay address follows")

            let movedB = try await store.rekey(transferSub: "x.b", to: "new.b", email: "b2@privaterelay.appleid.com", now: later)
            #expect(movedB)
            let newB = try await Self.identity(pool, "new.b")
            #expect(newB?.userID == own.user.id)
            #expect(newB?.email == "b2@privaterelay.appleid.com")
            let ownAfter = try await Self.userEmail(pool, own.user.id)
            #expect(ownAfter == "b@example.com", "an address another provider gave stays")

            let unknown = try await store.rekey(transferSub: "x.none", to: "new.none", email: nil, now: later)
            #expect(!unknown)
            let again = try await store.rekey(transferSub: "x.a", to: "new.a2", email: nil, now: later)
            #expect(!again, "re-keyed already")
            let stillA = try await Self.identity(pool, "new.a")
            #expect(stillA?.userID == relayed.user.id)
            let taken = try await store.rekey(transferSub: "x.c", to: "new.a", email: "c2@privaterelay.appleid.com", now: later)
            #expect(!taken, "another identity has that sub")
            let oldC = try await Self.identity(pool, "old.c")
            #expect(oldC?.userID == blocked.user.id)
            #expect(oldC?.email == "c@privaterelay.appleid.com")
            #expect(oldC?.rekeyedAt == nil)
            let blockedEmail = try await Self.userEmail(pool, blocked.user.id)
            #expect(blockedEmail == "c@privaterelay.appleid.com")
            let waiting = try await store.notRekeyed(after: "", limit: 10)
            #expect(Self.transferSubs(waiting) == ["x.c com.example.app"], "left for the next run")
            let stages = try await store.stages()
            #expect(stages == AppleTeamTransfer.Stages(notExported: 0, exported: 1, rekeyed: 2))

            // The receiving team's sub signs in to the same user.
            let returning = try await Self.signIn(pool, subject: "new.a")
            #expect(returning.user.id == relayed.user.id)
        }
    }

    @Test("eight re-keyings of one exported identity at once, as an import and sign-ins race: exactly one re-keys it")
    func concurrentRekeys() async throws {
        try await TestCluster.withMigratedPool(size: 4) { pool in
            let store = AppleTransferStore(pool: pool)
            let user = try await Self.signIn(pool, subject: "race.old", email: "race@privaterelay.appleid.com")
            try await store.recordExport(subject: "race.old", transferSub: "x.race", target: "TEAM2")
            let answers = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        try await store.rekey(transferSub: "x.race", to: "race.new", email: "race2@privaterelay.appleid.com", now: Self.now)
                    }
                }
                return try await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(answers.filter { $0 }.count == 1)
            let moved = try await Self.identity(pool, "race.new")
            #expect(moved?.userID == user.user.id)
            let email = try await Self.userEmail(pool, user.user.id)
            #expect(email == "race2@privaterelay.appleid.com")
            let stages = try await store.stages()
            #expect(stages == AppleTeamTransfer.Stages(notExported: 0, exported: 0, rekeyed: 1))
        }
    }

    @Test("two exported identities re-keyed to one new sub at once, round after round: one moves, the other answers false, none throws")
    func concurrentRekeysToOneSubject() async throws {
        try await TestCluster.withMigratedPool(size: 4) { pool in
            let store = AppleTransferStore(pool: pool)
            // Several rounds: the window between the statement's check and its update is narrow.
            for round in 0..<8 {
                for side in ["a", "b"] {
                    _ = try await Self.signIn(pool, subject: "taken.\(round).\(side)")
                    try await store.recordExport(subject: "taken.\(round).\(side)", transferSub: "x.\(round).\(side)", target: "TEAM2")
                }
                let answers = try await withThrowingTaskGroup(of: Bool.self) { group in
                    for side in ["a", "b"] {
                        group.addTask {
                            try await store.rekey(transferSub: "x.\(round).\(side)", to: "new.\(round)", email: nil, now: Self.now)
                        }
                    }
                    return try await group.reduce(into: [Bool]()) { $0.append($1) }
                }
                #expect(answers.filter { $0 }.count == 1, "round \(round)")
            }
            let stages = try await store.stages()
            #expect(stages == AppleTeamTransfer.Stages(notExported: 0, exported: 8, rekeyed: 8))
        }
    }

    @Test("a re-keying that meets another's uncommitted move to the same sub at the primary key answers false, not an error")
    func rekeyBehindAnUncommittedOne() async throws {
        try await TestCluster.withMigratedPool(size: 4) { pool in
            let store = AppleTransferStore(pool: pool)
            for side in ["a", "b"] {
                _ = try await Self.signIn(pool, subject: "held.\(side)")
                try await store.recordExport(subject: "held.\(side)", transferSub: "x.held.\(side)", target: "TEAM2")
            }
            // Side a moves to the sub and holds its transaction open; side b starts once a's row is
            // written, so b's check passes (a's row is not visible to it) and its update waits on
            // the key until a commits.
            let written = Atomic<Bool>(false)
            let holder = Task {
                try await pool.transaction { connection in
                    let row = try connection.query(
                        AppleTransferStore.rekeyStatement, ["apple", "x.held.a", "held.new", Self.now, nil as String?]).single
                    written.store(true, ordering: .sequentiallyConsistent)
                    _ = try connection.query("SELECT pg_sleep(1.5)")
                    return try row?.decode(Int.self, column: "rekeyed") == 1
                }
            }
            while !written.load(ordering: .sequentiallyConsistent) { try await Task.sleep(for: .milliseconds(5)) }
            let behind = try await store.rekey(transferSub: "x.held.b", to: "held.new", email: nil, now: Self.now)
            let held = try await holder.value
            #expect(held)
            #expect(!behind)
            let stages = try await store.stages()
            #expect(stages == AppleTeamTransfer.Stages(notExported: 0, exported: 1, rekeyed: 1))
        }
    }
}

