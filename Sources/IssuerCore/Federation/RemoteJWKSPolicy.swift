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

    /// the timings (docs/reference.md, "Faults and bad input").
    public init() {}

    func lifetime(maxAge: Int?) -> Duration {
        min(maximumLifetime, max(minimumLifetime, .seconds(maxAge ?? 0)))
    }
}
