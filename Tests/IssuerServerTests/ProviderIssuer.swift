import Foundation
import HummingbirdTesting
import IssuerCore
@testable import IssuerServer
import Testing
import TestSupport

/// An in-process issuer with one OpenID provider (docs/reference.md, "Google and other OpenID
/// providers") played by `FakeGoogleServer` over HTTP on loopback, for the suites that sign in
/// with a provider other than Apple.
enum ProviderIssuer {
    /// The issuer with one provider, `entry` (given the fake's URLs), served by a fake provider
    /// over HTTP on loopback; `environment` adds settings.
    static func withProvider(
        environment: [String: String] = [:], _ entry: @escaping @Sendable (FakeGoogleServer) -> [String: any Sendable],
        _ body: @escaping @Sendable (IssuerTestFixture, FakeGoogleServer, any TestClientProtocol) async throws -> Void
    ) async throws {
        let clock = ManualClock(Date())
        try await FakeGoogleServer.with(clock: clock) { provider in
            let file = try FakeGoogleServer.providersFile([entry(provider).mapValues { $0 as Any }])
            defer { TestDirectories.remove(file) }
            try await withIssuer(environment: environment.merging(["ISSUER_PROVIDERS_FILE": file.path]) { $1 }, clock: clock) { fixture in
                try await buildApplication(overHTTP(fixture)).test(.router) { client in try await body(fixture, provider, client) }
            }
        }
    }

    /// The issuer with a `google` provider whose keys are the fake's, fetched over HTTP;
    /// `environment` adds settings.
    static func withGoogle(
        _ entry: [String: any Sendable] = [:], environment: [String: String] = [:],
        _ body: @escaping @Sendable (IssuerTestFixture, FakeGoogleServer, any TestClientProtocol) async throws -> Void
    ) async throws {
        try await withProvider(environment: environment, { google in
            var provider: [String: any Sendable] = [
                "id": "google", "kind": "google", "native_audiences": [FakeGoogleServer.webClientID],
                "authorized_parties": [FakeGoogleServer.androidClientID], "jwks_uri": google.jwksURI,
            ]
            for (key, value) in entry { provider[key] = value }
            return provider
        }, body)
    }

    /// The fixture's dependencies with remote documents fetched over HTTP, Apple's keys aside
    /// (still the fixture's stub).
    static func overHTTP(_ fixture: IssuerTestFixture) -> IssuerDependencies {
        var dependencies = fixture.dependencies
        dependencies.jwksFetcher = AppleAsideFetcher(apple: fixture.appleFetcher, appleURL: fixture.configuration.appleJWKSURL)
        return dependencies
    }

    /// Apple's keys from the stub, everything else over HTTP.
    struct AppleAsideFetcher: JWKSFetcher {
        let apple: StubJWKSFetcher
        let appleURL: URL
        let http = HTTPJWKSFetcher()

        func fetchJWKS(from url: URL) async throws -> JWKSDocument {
            url == appleURL ? try await apple.fetchJWKS(from: url) : try await http.fetchJWKS(from: url)
        }
    }

    /// The provider and subject of the identity of the user `tokens` were issued to.
    static func identity(_ fixture: IssuerTestFixture, _ tokens: [String: Any]) async throws -> (provider: String, subject: String) {
        let userID = try AppleTestRig.userID(fixture, tokens)
        let row = try #require(try await fixture.pool.query("SELECT provider, subject FROM identities WHERE user_id = $1", [userID]).single)
        return (try row.decode(column: "provider"), try row.decode(column: "subject"))
    }

    /// An issuer with the provider `corp` (kind oidc, its endpoints from its discovery document)
    /// serving the hosted flow, and Apple's hosted flow when `withApple`.
    static func withHostedOIDCProvider(
        withApple: Bool = false,
        _ body: @escaping @Sendable (IssuerTestFixture, FakeGoogleServer, any TestClientProtocol) async throws -> Void
    ) async throws {
        try await withProvider(
            environment: withApple ? ["ISSUER_APPLE_SERVICES_ID": HostedFlow.servicesID] : [:],
            { [
                "id": "corp", "kind": "oidc", "issuer": $0.issuer, "client_id": "issuer-at-corp",
                "client_secret": FakeGoogleServer.clientSecret, "scopes": ["openid", "email"],
            ] }, body)
    }
}
