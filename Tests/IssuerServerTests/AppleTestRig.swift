import Foundation
import HummingbirdTesting
import IssuerCore
@testable import IssuerServer
import JOSE
import Logging
import Postgres
import Testing
import TestSupport

/// An issuer wired to a fake Apple (`FakeAppleServer`) with developer credentials, its
/// background worker running every 50 ms against the fixture's manual clock.
struct AppleTestRig {
    let apple: FakeAppleServer
    let fixture: IssuerTestFixture

    /// The fixture's server secret, to open what the issuer sealed.
    static let secret = ServerSecret(bytes: Array(repeating: 42, count: 32))

    /// Runs `body` with a fake Apple serving and a fresh issuer fixture configured for it.
    static func run(
        environment: [String: String] = [:], _ body: @escaping @Sendable (AppleTestRig) async throws -> Void
    ) async throws {
        try await FakeAppleServer.with { apple, port in
            try await withIssuer(environment: apple.environment(port: port).merging(environment) { $1 }) { fixture in
                let keys = fixture.apple
                apple.state.withLock {
                    $0.idTokens = { clientID, subject in try keys.identityToken(subject: subject, audience: clientID, email: nil) }
                }
                try await body(AppleTestRig(apple: apple, fixture: fixture))
            }
        }
    }

    /// The application of one "process" (`fixture`, or a fixture `sharing` it), worker included.
    static func test(_ fixture: IssuerTestFixture, _ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        var dependencies = fixture.dependencies
        dependencies.appleWorkerInterval = .milliseconds(50)
        try await buildApplication(dependencies).test(.router, body)
    }

    /// Signs in through the native exchange with Apple's code; answers the token response.
    static func signIn(
        _ client: some TestClientProtocol, _ fixture: IssuerTestFixture, subject: String, code: String?,
        email: String = "user@privaterelay.appleid.com"
    ) async throws -> [String: Any] {
        var body: [String: Any] = [
            "id_token": try fixture.apple.identityToken(subject: subject, email: email),
            "name": ["given_name": "Grace", "family_name": "Hopper"],
        ]
        if let code { body["authorization_code"] = code }
        let response = try await client.postJSON("/auth/apple/exchange", body)
        // A failed sign-in fails the test that asked for it, not the whole test process.
        try #require(response.status == .ok, "sign-in failed: \(response.status) \(response.json)")
        return response.json
    }

    /// The internal user id (`sub`) an access token names.
    static func userID(_ fixture: IssuerTestFixture, _ tokens: [String: Any]) throws -> UUID {
        let claims = try AccessTokenVerifier(configuration: fixture.configuration, clock: fixture.clock)
            .verify(tokens["access_token"] as! String, ring: try fixture.ring())
        return UUID(uuidString: claims.subject)!
    }

    /// The Apple refresh token held for the user, opened with the server secret; nil when none.
    static func heldToken(_ fixture: IssuerTestFixture, userID: UUID) async throws -> String? {
        guard let row = try await fixture.pool.query("SELECT sealed FROM apple_tokens WHERE user_id = $1", [userID]).single else { return nil }
        return try AppleTokenVault(secret: secret).open(try row.decode(column: "sealed"), kind: .refreshToken, userID: userID)
    }

    /// Every row of every table of the database, as text: what a dump would show.
    static func dump(_ pool: ConnectionPool) async throws -> String {
        let tables = try await pool.query(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename").rows.map { try $0.decode(String.self, column: "tablename") }
        var text = ""
        for table in tables {
            for row in try await pool.query("SELECT row_to_json(t)::text AS json FROM \(table) t").rows {
                text += try row.decode(String.self, column: "json") + "\n"
            }
        }
        return text
    }

    /// The encodings a secret could hide under in a dump.
    static func encodings(_ value: String) -> [String] {
        let bytes = Data(value.utf8)
        return [
            value, bytes.base64EncodedString(), Base64URL.encode(bytes),
            bytes.map { String(format: "%02x", $0) }.joined(),
            String(bytes.base64EncodedString().dropLast(4)),
        ]
    }

    /// Polls `condition` every 20 ms, for at most `seconds` of real time.
    static func eventually(seconds: Double = 30, _ condition: @Sendable () async throws -> Bool) async throws -> Bool {
        let end = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < end {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return try await condition()
    }
}
