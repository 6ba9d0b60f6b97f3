import Foundation
import IssuerCore
import IssuerStorage
import Postgres
import Testing
import TestSupport

/// docs/reference.md, "Linked identities": linking by e-mail trusts both sides and compares
/// addresses in the issuer's own form, in a database whose locale is UTF-8 (where `lower()`
/// folds `İ` to `i`), not only the embedded default's `C`.
@Suite("Linking by verified e-mail (reference: Linked identities)")
struct EmailLinkingStoreTests {
    static let locale = "C.UTF-8"

    /// `provider`'s first sign-in of `subject` with `email`, verified unless said otherwise.
    static func signIn(
        _ store: SignInStore, provider: String, subject: String, email: String, verified: Bool = true
    ) async throws -> SignIn {
        try await store.signIn(SignInRequest(
            identity: ExternalIdentity(provider: provider, subject: subject, audience: "aud", email: email, emailVerified: verified),
            clientID: "clanboards-mobile", scopes: ["openid"]))
    }

    static func store(_ pool: ConnectionPool, trusting providers: Set<String>) -> SignInStore {
        SignInStore(
            pool: pool, clock: SystemClock(), refreshTokenTTL: .seconds(3600), sessionMaxAge: .seconds(7200),
            emailLinking: EmailLinking(trustedProviders: providers))
    }

    @Test("an identity of a provider not trusted for e-mail is never a target: the victim's first trusted sign-in gets a user of its own")
    func untrustedTargetNeverJoined() async throws {
        try await TestCluster.withMigratedPool(size: 2, locale: Self.locale) { pool in
            let store = Self.store(pool, trusting: ["google"])
            let attacker = try await Self.signIn(store, provider: "weak", subject: "attacker", email: "victim@example.com")
            let victim = try await Self.signIn(store, provider: "google", subject: "victim", email: "victim@example.com")
            #expect(victim.user.id != attacker.user.id)
            #expect(!victim.joinedByVerifiedEmail)
            // The same address verified by a trusted provider is a target.
            let trusted = Self.store(pool, trusting: ["google", "corp"])
            let colleague = try await Self.signIn(trusted, provider: "corp", subject: "victim-at-corp", email: "Victim@Example.com")
            #expect(colleague.user.id == victim.user.id)
            #expect(colleague.joinedByVerifiedEmail)
        }
    }

    @Test("a sign-in from a provider not trusted for e-mail never joins, even a trusted provider's user")
    func untrustedSourceNeverJoins() async throws {
        try await TestCluster.withMigratedPool(size: 2, locale: Self.locale) { pool in
            let store = Self.store(pool, trusting: ["google"])
            let owner = try await Self.signIn(store, provider: "google", subject: "owner", email: "owner@example.com")
            let other = try await Self.signIn(store, provider: "weak", subject: "other", email: "owner@example.com")
            #expect(other.user.id != owner.user.id)
        }
    }

    @Test("addresses are compared by the issuer: anything but ASCII never links (İ is not i), ASCII case is ignored", arguments: [
        ("alİce@example.com", "alice@example.com", false),
        ("alice@example.com", "alİce@example.com", false),
        ("ALICE@EXAMPLE.COM", "alice@example.com", true),
        ("alice@example.com", "Alice@Example.Com", true),
        ("alıce@example.com", "alice@example.com", false),
        ("ǅ@example.com", "ǆ@example.com", false),
    ])
    func issuerComparison(_ stored: String, _ incoming: String, _ joins: Bool) async throws {
        try await TestCluster.withMigratedPool(size: 2, locale: Self.locale) { pool in
            let store = Self.store(pool, trusting: ["google", "corp"])
            let first = try await Self.signIn(store, provider: "google", subject: "first", email: stored)
            let second = try await Self.signIn(store, provider: "corp", subject: "second", email: incoming)
            #expect((second.user.id == first.user.id) == joins)
        }
    }

    @Test("an Apple private relay address never matches, whatever its case or a dotted capital I", arguments: [
        "x1@privaterelay.appleid.com", "x1@PrivateRelay.AppleID.com", "x1@prİvaterelay.appleid.com",
    ])
    func relayNeverMatches(_ address: String) async throws {
        try await TestCluster.withMigratedPool(size: 2, locale: Self.locale) { pool in
            let store = Self.store(pool, trusting: ["apple", "corp"])
            let apple = try await Self.signIn(store, provider: "apple", subject: "relay", email: "x1@privaterelay.appleid.com")
            let corp = try await Self.signIn(store, provider: "corp", subject: "relay-corp", email: address)
            #expect(corp.user.id != apple.user.id)
        }
    }

    @Test("trust is configuration: providers with link_by_verified_email, and Apple only with ISSUER_APPLE_LINK_BY_VERIFIED_EMAIL")
    func configuredTrust() throws {
        try TestDirectories.withTemporary("email-trust") { directory in
            let file = directory.appendingPathComponent("providers.json")
            try #"""
                [{"id": "google", "kind": "google", "native_audiences": ["w"], "link_by_verified_email": true},
                 {"id": "corp", "kind": "oidc", "issuer": "https://corp.example.com", "native_audiences": ["c"]}]
                """#.write(to: file, atomically: true, encoding: .utf8)
            #expect(EmailLinking(try Configuration(environment: ["ISSUER_PROVIDERS_FILE": file.path])).trustedProviders == ["google"])
            #expect(EmailLinking(try Configuration(environment: [
                "ISSUER_PROVIDERS_FILE": file.path, "ISSUER_APPLE_LINK_BY_VERIFIED_EMAIL": "true",
            ])).trustedProviders == ["google", "apple"])
            #expect(EmailLinking(try Configuration(environment: [:])).trustedProviders.isEmpty)
        }
    }

    @Test("the database's comparison form is the issuer's, character for character")
    func sameFormBothSides() async throws {
        let addresses = [
            "Alice@Example.COM", "alİce@example.com", "a b@example.com", "tab\t@example.com", "~!#$%&'*+/=?^_`{|}@x.y",
            "ÄLICE@example.com", "straße@example.com", "", "ZZ@AA",
        ]
        try await TestCluster.withMigratedPool(size: 2, locale: Self.locale) { pool in
            for (index, address) in addresses.enumerated() {
                try await pool.query(
                    """
                    WITH account AS (INSERT INTO users (id) VALUES (gen_random_uuid()) RETURNING id)
                    INSERT INTO identities (provider, subject, user_id, audience, email, email_verified)
                    SELECT 'p', $1, id, 'a', $2, true FROM account
                    """,
                    ["s\(index)", address])
                let key: String? = try await pool.query("SELECT email_key FROM identities WHERE subject = $1", ["s\(index)"])
                    .single?.decodeIfPresent(column: "email_key")
                #expect(key == EmailLinking.comparisonForm(address), "\(address)")
            }
        }
    }
}
