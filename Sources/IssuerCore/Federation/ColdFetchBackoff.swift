import Foundation

/// When a remote document with nothing cached (a provider's JWK Set, its discovery document) may
/// be fetched again after failed fetches (docs/reference.md, "Faults and bad input").
///
/// With something cached, the 30-second refetch cooldown already spaces the fetches. With nothing
/// cached, every sign-in needs the document, and a provider that refuses at once would be asked
/// once per request, with a warning logged each time. So failures pause the next try: 1 s after
/// the first, doubling up to the cooldown. Requests inside the pause are refused as the failed
/// fetch was; a provider that comes back is asked again within a pause. A fetch that succeeds
/// leaves something cached for good, so the backoff is not consulted again.
struct ColdFetchBackoff: Sendable {
    private var failures = 0
    private var retryAt: Date?

    /// Whether a fetch may start at `now`.
    func allows(at now: Date) -> Bool {
        retryAt.map { now >= $0 } ?? true
    }

    /// A fetch failed at `now`: the next waits one pause longer than the last.
    mutating func failed(at now: Date, policy: RemoteJWKSPolicy) {
        failures += 1
        retryAt = now.addingTimeInterval(policy.coldRetryPause(afterFailures: failures).timeInterval)
    }
}
