import Foundation
import JOSE
import Logging

/// A provider's signing keys, fetched from its `jwks_uri` and cached (docs/reference.md, "Faults and bad input"):
/// `Cache-Control` honoured within bounds; an unknown `kid` refetches at once unless a fetch
/// started in the last 30 s; one fetch however many requests wait for it; keys served stale for
/// up to 7 days while the provider is unreachable; with nothing cached, failed fetches pause the
/// next (`ColdFetchBackoff`). Malformed members, and keys other than RSA or P-256, are
/// skipped, not fatal. A failed fetch keeps its reason (`RemoteFetchFailure`, the discovery
/// document's own when that is what failed) in the log line, the metric and the error.
///
/// Nothing here is Apple-specific: another OpenID provider is another instance with its URL.
public actor RemoteJWKSCache {
    private struct Snapshot {
        var keys: [String: JWSVerificationKey]
        var fetchedAt: Date
        var freshUntil: Date
    }

    /// Where the set lives, as logs and errors name it.
    public nonisolated let source: String
    /// Where to fetch it: a configured URL, or one a provider's discovery document names.
    private let locate: @Sendable () async throws -> URL
    private let fetcher: any JWKSFetcher
    private let policy: RemoteJWKSPolicy
    private let clock: any WallClock
    private let logger: Logger
    /// Whose keys these are, in the events (`AccountEvents.keysFetched`).
    private let name: String
    private let events: any AccountEvents

    private var snapshot: Snapshot?
    private var lastFetchStarted: Date?
    private var inFlight: Task<Snapshot, any Error>?
    private var backoff = ColdFetchBackoff()
    /// Why the last fetch failed, for the callers that a pause keeps from fetching again.
    private var lastFailure: String?
    /// Whether the latest fetch failed: then a `kid` missing from the cached set may be a key the
    /// provider rotated in that we could not see, not a made-up one.
    private var lastFetchFailed = false

    /// - Parameters:
    ///   - name: whose keys these are, as `events` are told of every fetch (for metrics).
    public init(
        url: URL, fetcher: any JWKSFetcher, policy: RemoteJWKSPolicy = RemoteJWKSPolicy(), clock: any WallClock,
        logger: Logger = Logger(label: "issuer.jwks"), name: String = "", events: any AccountEvents = UncountedAccountEvents()
    ) {
        self.init(
            source: url.absoluteString, locate: { url }, fetcher: fetcher, policy: policy, clock: clock, logger: logger,
            name: name, events: events)
    }

    /// A set whose URL is found when first needed (`locate`, e.g. a discovery document's
    /// `jwks_uri`); `source` names it in logs until then.
    public init(
        source: String, locate: @escaping @Sendable () async throws -> URL, fetcher: any JWKSFetcher,
        policy: RemoteJWKSPolicy = RemoteJWKSPolicy(), clock: any WallClock, logger: Logger = Logger(label: "issuer.jwks"),
        name: String = "", events: any AccountEvents = UncountedAccountEvents()
    ) {
        self.source = source
        self.locate = locate
        self.fetcher = fetcher
        self.policy = policy
        self.clock = clock
        self.logger = logger
        self.name = name
        self.events = events
    }

    /// The verification key with this `kid` (RFC 7515 §4.1.4).
    public func key(kid: String?) async throws(RemoteJWKSError) -> JWSVerificationKey {
        let now = clock.now
        guard let current = snapshot else {
            // Nothing cached: every caller waits on the one fetch in flight, whatever its age;
            // after failures, a new one starts only once the pause is over.
            guard inFlight != nil || backoff.allows(at: now) else {
                throw .unavailable("keys at \(source) could not be fetched (\(lastFailure ?? "failed")); not tried again yet")
            }
            let fetched: Snapshot
            do { fetched = try await refresh() } catch { throw .unavailable("\(RemoteFetchFailure(of: error).rawValue): \(error)") }
            return try Self.lookup(kid, in: fetched)
        }
        let coolingDown = lastFetchStarted.map { now.timeIntervalSince($0) < policy.refetchCooldown.timeInterval } ?? false
        if now < current.freshUntil {
            if let kid, let key = current.keys[kid] { return key }
            // The provider may have rotated its keys: look again, but not more than every 30 s,
            // so a stream of tokens with made-up kids cannot turn us into a traffic amplifier.
            // A look that fails is no verdict on the kid: that is unavailability, so nothing
            // (Apple's token custody above all) treats a passing outage as a forged token.
            if coolingDown {
                guard !lastFetchFailed else {
                    throw .unavailable("keys at \(source) could not be fetched (\(lastFailure ?? "failed")); the kid may be new")
                }
                throw .unknownKey
            }
            let fetched: Snapshot
            do { fetched = try await refresh() } catch { throw .unavailable("\(RemoteFetchFailure(of: error).rawValue): \(error)") }
            return try Self.lookup(kid, in: fetched)
        }
        // Stale: refresh, falling back to the stale keys while the provider is down.
        if !coolingDown, let fetched = try? await refresh() {
            return try Self.lookup(kid, in: fetched)
        }
        if let latest = snapshot, now.timeIntervalSince(latest.fetchedAt) <= policy.staleLimit.timeInterval {
            return try Self.lookup(kid, in: latest)
        }
        throw .unavailable("keys at \(source) could not be fetched (\(lastFailure ?? "not tried again yet")) and the cached ones are too old")
    }

    private static func lookup(_ kid: String?, in snapshot: Snapshot) throws(RemoteJWKSError) -> JWSVerificationKey {
        guard let kid, let key = snapshot.keys[kid] else { throw .unknownKey }
        return key
    }

    /// Joins the fetch in flight, or starts one.
    private func refresh() async throws -> Snapshot {
        if let inFlight { return try await inFlight.value }
        lastFetchStarted = clock.now
        let task = Task { try await fetch() }
        inFlight = task
        defer { inFlight = nil }
        do {
            let fetched = try await task.value
            snapshot = fetched
            lastFetchFailed = false
            return fetched
        } catch {
            lastFetchFailed = true
            backoff.failed(at: clock.now, policy: policy)
            throw error
        }
    }

    private func fetch() async throws -> Snapshot {
        do {
            let url = try await locate()
            let document = try await fetcher.fetchJWKS(from: url)
            let keys: [String: JWSVerificationKey]
            do {
                keys = try JWKS.verificationKeys(fromJSON: document.body)
            } catch {
                throw Failure(reason: .notJSON, description: "the body is not a JWK Set")
            }
            guard !keys.isEmpty else { throw Failure(reason: .incomplete, description: "the key set has no usable RS256 or ES256 key") }
            let now = clock.now
            events.keysFetched(keys: name, failure: nil)
            logger.debug("fetched JWKS", metadata: ["url": "\(url.absoluteString)", "keys": "\(keys.count)"])
            return Snapshot(keys: keys, fetchedAt: now, freshUntil: now.addingTimeInterval(policy.lifetime(maxAge: document.maxAge).timeInterval))
        } catch {
            let reason = RemoteFetchFailure(of: error)
            lastFailure = "\(reason.rawValue): \(error)"
            events.keysFetched(keys: name, failure: reason)
            logger.warning("JWKS fetch failed", metadata: ["url": "\(source)", "reason": "\(reason.rawValue)", "error": "\(error)"])
            throw error
        }
    }

    /// A fetched body that is not a usable key set.
    private struct Failure: RemoteFetchFailureReporting, CustomStringConvertible {
        let reason: RemoteFetchFailure
        let description: String
        var fetchFailure: RemoteFetchFailure { reason }
    }
}
