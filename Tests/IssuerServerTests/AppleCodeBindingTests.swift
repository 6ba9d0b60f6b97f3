import Foundation
import HummingbirdTesting
import IssuerCore
@testable import IssuerServer
import Synchronization
import Testing
import TestSupport

/// Apple's code is bound to the user who signs in (reference: Apple token custody): Apple's token
/// answer carries an `id_token` whose `sub` must be that user's Apple account, else Apple's token
/// is revoked at once and nothing is kept. And a token Apple gave us is never left held by no one.
@Suite("Apple token custody: the code bound to the user signing in", .timeLimit(.minutes(10)))
struct AppleCodeBindingTests {
    @Test("another Apple account's code, at sign-in: Apple's token is revoked at once and nothing is held for the user")
    func someoneElsesCodeNow() async throws {
        try await AppleTestRig.run { rig in
            let (victimCode, victimToken) = rig.apple.issueCode(subject: "binding.victim")
            try await AppleTestRig.test(rig.fixture) { client in
                let tokens = try await AppleTestRig.signIn(client, rig.fixture, subject: "binding.attacker", code: victimCode)
                #expect(tokens["access_token"] != nil, "the attacker's own sign-in still succeeds")
            }
            #expect(try await rig.fixture.count("apple_tokens") == 0)
            #expect(rig.apple.revokedTokens == [victimToken])
            #expect(try await rig.fixture.count("apple_revocations WHERE outcome = 'revoked'") == 1)
            #expect(MetricsExposition.value(rig.fixture.metrics, #"issuer_apple_code_redemptions_total{outcome="mismatched"}"#) == 1)
        }
    }

    @Test("another Apple account's code, redeemed later by the worker: revoked, nothing held")
    func someoneElsesCodeLater() async throws {
        try await AppleTestRig.run { rig in
            let (victimCode, victimToken) = rig.apple.issueCode(subject: "binding.victim2")
            rig.apple.mode = .unavailable
            try await AppleTestRig.test(rig.fixture) { client in
                _ = try await AppleTestRig.signIn(client, rig.fixture, subject: "binding.attacker2", code: victimCode)
                #expect(try await rig.fixture.count("apple_code_redemptions") == 1)
                rig.apple.mode = .up
                rig.fixture.clock.advance(by: 60)
                #expect(try await AppleTestRig.eventually { rig.apple.revokedTokens == [victimToken] })
            }
            #expect(try await rig.fixture.count("apple_tokens") == 0)
            #expect(try await rig.fixture.count("apple_code_redemptions") == 0)
        }
    }

    @Test("an answer whose id_token is missing or forged: revoked, nothing held", arguments: ["missing", "forged"])
    func unverifiedAnswer(kind: String) async throws {
        try await AppleTestRig.run { rig in
            let (code, appleToken) = rig.apple.issueCode(subject: "binding.self")
            // Signed by a key Apple's JWKS does not hold, naming the right account.
            let forger = try FakeAppleKeys(clock: rig.fixture.clock)
            let forged: @Sendable (String, String) throws -> String = { clientID, subject in
                try forger.identityToken(subject: subject, audience: clientID, email: nil)
            }
            rig.apple.state.withLock { $0.idTokens = kind == "missing" ? nil : forged }
            try await AppleTestRig.test(rig.fixture) { client in
                _ = try await AppleTestRig.signIn(client, rig.fixture, subject: "binding.self", code: code)
            }
            #expect(try await rig.fixture.count("apple_tokens") == 0)
            #expect(rig.apple.revokedTokens == [appleToken])
        }
    }

    @Test("Apple's keys unreachable while its answer is verified: nothing revoked, the answer held sealed; once the keys are back it is kept for its user, or revoked when it is another Apple account's",
          arguments: [false, true])
    func keysUnavailableIsNotAMismatch(someoneElses: Bool) async throws {
        try await AppleTestRig.run { rig in
            let (code, appleToken) = rig.apple.issueCode(subject: someoneElses ? "held.victim" : "held.self")
            rig.apple.mode = .unavailable
            let signedIn = Mutex<UUID?>(nil)
            try await AppleTestRig.test(rig.fixture) { client in
                let tokens = try await AppleTestRig.signIn(client, rig.fixture, subject: "held.self", code: code)
                let userID = try AppleTestRig.userID(rig.fixture, tokens)
                signedIn.withLock { $0 = userID }
            }
            #expect(try await rig.fixture.count("apple_code_redemptions") == 1)
            // Another process, whose cache of Apple's keys is cold while Apple's key set cannot be fetched.
            try await rig.fixture.withSharing { (second: IssuerTestFixture) async throws in
                second.appleFetcher.setFailing(true)
                rig.apple.mode = .up
                rig.fixture.clock.advance(by: 60)
                try await AppleTestRig.test(second) { (_: any TestClientProtocol) async throws in
                    #expect(try await AppleTestRig.eventually { try await rig.fixture.count("apple_held_answers") == 1 })
                    #expect(try await rig.fixture.count("apple_code_redemptions") == 0, "the code ends with its answer held")
                    #expect(rig.apple.revokedTokens.isEmpty, "a fault of ours is not a mismatch")
                    #expect(try await rig.fixture.count("apple_revocations") == 0)
                    #expect(try await rig.fixture.count("apple_tokens") == 0)
                    #expect(!(try await AppleTestRig.dump(rig.fixture.pool)).contains(appleToken), "held sealed")

                    // The keys are back, after the id_token's own lifetime: judged as of its receipt.
                    second.appleFetcher.setFailing(false)
                    rig.fixture.clock.advance(by: 3600)
                    #expect(try await AppleTestRig.eventually { try await rig.fixture.count("apple_held_answers") == 0 })
                    if someoneElses {
                        // The held answer ends when its revocation is queued; the send follows, and the
                        // app must still be running for it (a cancelled send is retried, not lost).
                        #expect(try await AppleTestRig.eventually { rig.apple.revokedTokens == [appleToken] })
                    }
                }
            }
            let userID = try #require(signedIn.withLock { $0 })
            if someoneElses {
                #expect(rig.apple.revokedTokens == [appleToken])
                #expect(try await rig.fixture.count("apple_tokens") == 0)
            } else {
                #expect(rig.apple.revokedTokens.isEmpty)
                #expect(try await AppleTestRig.heldToken(rig.fixture, userID: userID) == appleToken)
            }
        }
    }

    @Test("a token the database will not store is revoked, not left held by no one")
    func storeFails() async throws {
        try await AppleTestRig.run { rig in
            let (code, appleToken) = rig.apple.issueCode(subject: "binding.nostore")
            try await rig.fixture.pool.query("ALTER TABLE apple_tokens RENAME TO apple_tokens_away")
            try await AppleTestRig.test(rig.fixture) { client in
                _ = try await AppleTestRig.signIn(client, rig.fixture, subject: "binding.nostore", code: code)
            }
            try await rig.fixture.pool.query("ALTER TABLE apple_tokens_away RENAME TO apple_tokens")
            #expect(rig.apple.revokedTokens == [appleToken])
        }
    }

    @Test("a worker pass claims one pending code at a time, so its lease covers one send, not a batch")
    func claimsOneAtATime() async throws {
        try await AppleTestRig.run { rig in
            let codes = ["binding.lease1", "binding.lease2"].map { rig.apple.issueCode(subject: $0).code }
            rig.apple.mode = .unavailable
            let dependencies = {
                var dependencies = rig.fixture.dependencies
                dependencies.appleWorkerInterval = .seconds(3600)
                return dependencies
            }()
            try await buildApplication(dependencies).test(.router) { client in
                for (code, subject) in zip(codes, ["binding.lease1", "binding.lease2"]) {
                    _ = try await AppleTestRig.signIn(client, rig.fixture, subject: subject, code: code)
                }
                #expect(try await rig.fixture.count("apple_code_redemptions") == 2)
                rig.fixture.clock.advance(by: 60)
                rig.apple.mode = .hanging
                let requestsBefore = rig.apple.state.withLock { $0.tokenRequests }
                let custody = IssuerServices(dependencies, keys: KeyRingMonitor(
                    store: KeyRingDirectory(directory: rig.fixture.configuration.keysDirectory), clock: rig.fixture.clock,
                    logger: dependencies.logger, signerTiming: SignerTiming(configuration: rig.fixture.configuration))).appleCustody
                let pass = Task { try await custody.retryPending(timeout: .seconds(10), logger: dependencies.logger) }
                #expect(try await AppleTestRig.eventually { rig.apple.state.withLock { $0.tokenRequests } == requestsBefore + 1 })
                let now = rig.fixture.clock.now
                #expect(try await rig.fixture.pool.query(
                    "SELECT count(*) AS count FROM apple_code_redemptions WHERE next_attempt_at > $1", [now]).single?.decode(Int.self, column: "count") == 1,
                    "only the code being sent is claimed")
                rig.apple.mode = .unavailable
                #expect(try await pass.value == 2)
            }
        }
    }
}
