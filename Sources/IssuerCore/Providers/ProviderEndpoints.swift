import Foundation

/// Where a provider's keys and endpoints are (docs/reference.md, "Google and other OpenID
/// providers"): the configured URLs, and for the rest the provider's discovery document
/// (OpenID Connect Discovery 1.0 §4), fetched with the rules of a remote JWK Set (one fetch at a
/// time, `Cache-Control` within bounds, served stale while the provider is unreachable, failed
/// fetches with nothing cached pausing the next, `ColdFetchBackoff`). The
/// document's `issuer` must be the configured one (§4.3), and every URL in it `https` (plain
/// `http` only to loopback), or it is not used.
public actor ProviderEndpoints {
    /// The URLs a sign-in needs.
    public struct Resolved: Sendable, Equatable {
        public var jwksURI: URL
        public var authorizationEndpoint: URL?
        public var tokenEndpoint: URL?
    }

    /// Why the endpoints are not known.
    public struct Unavailable: Error, CustomStringConvertible {
        public let description: String
    }

    private let settings: ProviderSettings
    private let fetcher: any JWKSFetcher
    private let policy: RemoteJWKSPolicy
    private let clock: any WallClock
    private var cached: (resolved: Resolved, fetchedAt: Date, freshUntil: Date)?
    private var lastFetchStarted: Date?
    private var inFlight: Task<Resolved, any Error>?
    private var backoff = ColdFetchBackoff()

    public init(settings: ProviderSettings, fetcher: any JWKSFetcher, policy: RemoteJWKSPolicy = RemoteJWKSPolicy(), clock: any WallClock) {
        self.settings = settings
        self.fetcher = fetcher
        self.policy = policy
        self.clock = clock
    }

    /// Whether everything is configured, so the discovery document is never fetched.
    public nonisolated var isConfigured: Bool {
        settings.jwksURI != nil && (!settings.servesHostedFlow || (settings.authorizationEndpoint != nil && settings.tokenEndpoint != nil))
    }

    public func resolve() async throws -> Resolved {
        if isConfigured, let jwksURI = settings.jwksURI {
            return Resolved(jwksURI: jwksURI, authorizationEndpoint: settings.authorizationEndpoint, tokenEndpoint: settings.tokenEndpoint)
        }
        let now = clock.now
        if let cached, now < cached.freshUntil { return cached.resolved }
        let coolingDown = lastFetchStarted.map { now.timeIntervalSince($0) < policy.refetchCooldown.timeInterval } ?? false
        let mayFetch = cached == nil ? inFlight != nil || backoff.allows(at: now) : !coolingDown
        if mayFetch, let fetched = try? await refresh() { return fetched }
        if let cached, now.timeIntervalSince(cached.fetchedAt) <= policy.staleLimit.timeInterval { return cached.resolved }
        throw Unavailable(description: "the discovery document of \(settings.issuer) is unreachable")
    }

    private func refresh() async throws -> Resolved {
        if let inFlight { return try await inFlight.value }
        lastFetchStarted = clock.now
        let task = Task { try await fetch() }
        inFlight = task
        defer { inFlight = nil }
        do {
            return try await task.value
        } catch {
            backoff.failed(at: clock.now, policy: policy)
            throw error
        }
    }

    private func fetch() async throws -> Resolved {
        guard let url = settings.discoveryURL else { throw Unavailable(description: "no discovery URL for \(settings.issuer)") }
        let document = try await fetcher.fetchJWKS(from: url)
        let resolved = try Self.resolved(document.body, settings: settings)
        let now = clock.now
        cached = (resolved, now, now.addingTimeInterval(policy.lifetime(maxAge: document.maxAge).timeInterval))
        return resolved
    }

    /// The URLs of a discovery document, configured ones first.
    static func resolved(_ body: Data, settings: ProviderSettings) throws -> Resolved {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else {
            throw Unavailable(description: "the discovery document is not a JSON object")
        }
        guard object["issuer"] as? String == settings.issuer else {
            throw Unavailable(description: "the discovery document names another issuer")
        }
        func url(_ name: String) throws -> URL? {
            guard let text = object[name] as? String else { return nil }
            guard let url = URL(string: text), url.isSecureOrLoopback else {
                throw Unavailable(description: "the discovery document's \(name) is not https")
            }
            return url
        }
        guard let jwksURI = try settings.jwksURI ?? url("jwks_uri") else {
            throw Unavailable(description: "the discovery document has no jwks_uri")
        }
        return Resolved(
            jwksURI: jwksURI, authorizationEndpoint: try settings.authorizationEndpoint ?? url("authorization_endpoint"),
            tokenEndpoint: try settings.tokenEndpoint ?? url("token_endpoint"))
    }
}
