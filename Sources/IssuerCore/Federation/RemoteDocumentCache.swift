import Foundation

/// One remote document (a provider's JWK Set, RFC 7517 §5; its discovery document, OpenID Connect
/// Discovery 1.0 §4), fetched and cached by the rules of docs/reference.md ("Faults and bad input"),
/// in one place so that every such document keeps them the same way (docs/design.md, "Apple and
/// remote parties"):
///
/// - one fetch at a time: however many callers miss, they all wait on the one in flight;
/// - fresh for the document's `Cache-Control: max-age` within `RemoteJWKSPolicy`'s bounds
///   (RFC 9111 §4.2.1);
/// - a fetch starts at most once per `refetchCooldown` while something is cached, whether the
///   cached document is stale or a caller finds the fresh one lacking (an unknown `kid`);
/// - served stale, up to `staleLimit` after it was fetched, while fetching fails;
/// - with nothing cached, failed fetches pause the next (`ColdFetchBackoff`).
///
/// It knows nothing of the document's meaning: `fetch` fetches and parses it, and logs or counts
/// its own outcome. A failure keeps the error `fetch` threw, so whoever asked can still name its
/// `RemoteFetchFailure` in a log line, the metric and `issuer doctor`.
actor RemoteDocumentCache<Document: Sendable> {
    /// What one fetch yields: the parsed document and its `Cache-Control: max-age` in seconds.
    typealias Fetch = @Sendable () async throws -> (document: Document, maxAge: Int?)

    /// Why no document could be given; each case carries the errors a caller needs to name the reason.
    enum Unavailable: Error {
        /// Nothing is cached and the pause after failed fetches is not over: none was tried.
        /// `lastFailure` is why the last one failed.
        case paused(lastFailure: (any Error)?)
        /// The cached document is fresh but the caller found it lacking, and a fetch started less
        /// than `refetchCooldown` ago: none was tried. `latestFailure` is why the latest fetch
        /// failed, nil when it succeeded (the lack is then the document's, not the provider's outage).
        case coolingDown(latestFailure: (any Error)?)
        /// The fetch this call made or joined failed, and nothing cached could stand in.
        case failed(any Error)
        /// The cached document is stale beyond `staleLimit`: `fetchFailure` is why this call's
        /// fetch failed, nil when the cooldown kept it from trying; `lastFailure` why the last failed.
        case expired(fetchFailure: (any Error)?, lastFailure: (any Error)?)
    }

    private struct Entry: Sendable {
        var document: Document
        var fetchedAt: Date
        var freshUntil: Date
    }

    private let fetch: Fetch
    private let policy: RemoteJWKSPolicy
    private let clock: any WallClock

    private var entry: Entry?
    private var lastFetchStarted: Date?
    private var inFlight: Task<Entry, any Error>?
    private var backoff = ColdFetchBackoff()
    /// Why the last failed fetch failed, kept after later successes.
    private var lastFailure: (any Error)?
    /// Whether the latest fetch failed.
    private var latestFetchFailed = false

    init(policy: RemoteJWKSPolicy, clock: any WallClock, fetch: @escaping Fetch) {
        self.policy = policy
        self.clock = clock
        self.fetch = fetch
    }

    /// The document: the cached one while fresh and `sufficient` accepts it, else a fetched one, else
    /// the cached one while stale within bounds.
    ///
    /// - Parameter sufficient: whether a fresh cached document serves this call; one that does not
    ///   (a JWK Set without the `kid` asked for: the provider may have rotated its keys) is
    ///   fetched again, but no sooner than `refetchCooldown` after the last fetch started, so a
    ///   stream of requests for what is not there cannot turn the issuer into a traffic amplifier.
    func document(sufficient: @Sendable (Document) -> Bool = { _ in true }) async throws(Unavailable) -> Document {
        let now = clock.now
        guard let current = entry else {
            // Nothing cached: every caller waits on the one fetch in flight, whatever its age;
            // after failures, a new one starts only once the pause is over.
            guard inFlight != nil || backoff.allows(at: now) else { throw .paused(lastFailure: lastFailure) }
            do { return try await refresh() } catch { throw .failed(error) }
        }
        let coolingDown = lastFetchStarted.map { now.timeIntervalSince($0) < policy.refetchCooldown.timeInterval } ?? false
        if now < current.freshUntil {
            if sufficient(current.document) { return current.document }
            if coolingDown { throw .coolingDown(latestFailure: latestFetchFailed ? lastFailure : nil) }
            do { return try await refresh() } catch { throw .failed(error) }
        }
        // Stale: fetch again, falling back to the stale document while the provider is down.
        var fetchFailure: (any Error)?
        if !coolingDown {
            do { return try await refresh() } catch { fetchFailure = error }
        }
        if let latest = entry, now.timeIntervalSince(latest.fetchedAt) <= policy.staleLimit.timeInterval {
            return latest.document
        }
        throw .expired(fetchFailure: fetchFailure, lastFailure: lastFailure)
    }

    /// Joins the fetch in flight, or starts one.
    private func refresh() async throws -> Document {
        if let inFlight { return try await inFlight.value.document }
        lastFetchStarted = clock.now
        let task = Task { try await fetchAndRecord() }
        inFlight = task
        defer { inFlight = nil }
        return try await task.value.document
    }

    /// One fetch, its outcome recorded before any caller waiting on it resumes.
    private func fetchAndRecord() async throws -> Entry {
        do {
            let fetched = try await fetch()
            let now = clock.now
            let fresh = Entry(
                document: fetched.document, fetchedAt: now,
                freshUntil: now.addingTimeInterval(policy.lifetime(maxAge: fetched.maxAge).timeInterval))
            entry = fresh
            latestFetchFailed = false
            return fresh
        } catch {
            lastFailure = error
            latestFetchFailed = true
            backoff.failed(at: clock.now, policy: policy)
            throw error
        }
    }
}
