/// The timing rules (docs/reference.md, "Faults and bad input") for a remote JWK Set.
public struct RemoteJWKSPolicy: Sendable, Equatable {
    /// `Cache-Control` is honoured, but never below this…
    public var minimumLifetime: Duration = .seconds(300)
    /// …nor above this.
    public var maximumLifetime: Duration = .seconds(86_400)
    /// An unknown `kid` refetches only if no fetch started within this long; the same pause
    /// applies to retrying a provider that is down while stale keys are served.
    public var refetchCooldown: Duration = .seconds(30)
    /// How long keys are served stale while the provider cannot be reached.
    public var staleLimit: Duration = .seconds(7 * 86_400)
    /// With nothing cached, a failed fetch is tried again no sooner than this, doubling with each
    /// failure in a row up to `refetchCooldown` (`ColdFetchBackoff`).
    public var coldRetryPause: Duration = .seconds(1)

    /// the timings (docs/reference.md, "Faults and bad input").
    public init() {}

    /// The pause after `failures` failed fetches in a row with nothing cached: 1 s, 2 s, 4 s… up to
    /// `refetchCooldown`.
    func coldRetryPause(afterFailures failures: Int) -> Duration {
        let doublings = min(max(failures - 1, 0), 30)
        return min(refetchCooldown, coldRetryPause * (1 << doublings))
    }

    func lifetime(maxAge: Int?) -> Duration {
        min(maximumLifetime, max(minimumLifetime, .seconds(maxAge ?? 0)))
    }
}
