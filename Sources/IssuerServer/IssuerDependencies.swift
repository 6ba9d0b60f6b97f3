import AsyncHTTPClient
import IssuerCore
import Logging
import NIOCore
import Postgres

/// Everything the application needs from outside, built once by `issuer serve` (or a test) and
/// handed to `buildApplication`. Nothing below reads global state; tests replace the clock and
/// the way Apple's keys are fetched.
public struct IssuerDependencies: Sendable {
    /// the settings (docs/reference.md, "Configuration"), already validated.
    public var configuration: Configuration
    /// The database, shared by every service of the application.
    public var pool: ConnectionPool
    /// The logger the application's lines go through.
    public var logger: Logger
    /// Where the metrics are recorded (docs/reference.md, "Operations"); one per application.
    public var metrics: ServerMetrics
    /// The time source of every expiry check; tests inject a fake one.
    public var clock: any WallClock
    /// How provider JWK Sets are fetched: over HTTP in production.
    public var jwksFetcher: any JWKSFetcher
    /// the server secret (docs/reference.md, "Configuration"), loaded (or created) once at start: `ServerSecret.load`.
    public var serverSecret: ServerSecret
    /// docs/reference.md, "Faults and bad input": how long a connection may take to deliver a complete request (30 s); tests
    /// shorten it.
    public var requestReadTimeout: TimeAmount = RequestReadTimeoutHandler.defaultLimit
    /// How forms reach Apple's token and revoke endpoints (docs/reference.md, "Account deletion") and providers' token
    /// endpoints: over HTTP under docs/reference.md, "Faults and bad input"
    /// rules (`HTTPFormPoster`), through the configured proxy (docs/reference.md, "Outbound proxy"), unless a test replaces it.
    public var formPoster: any FormPoster
    /// How Facebook's Graph API is called (docs/reference.md, "Facebook"): over HTTP under the same
    /// rules and proxy as `formPoster`, unless a test replaces it.
    public var remoteRequester: any RemoteRequester
    /// The build `issuer_build_info` names (docs/operations.md, "Reading the metrics"); `issuer serve` sets it.
    public var buildInfo: BuildInfo = .unknown
    /// How often the background worker retries Apple code redemptions and revocations; tests shorten it.
    public var appleWorkerInterval: Duration = .seconds(5)

    /// A nil `jwksFetcher` fetches over HTTP under the rules (docs/reference.md, "Faults and bad input") (`RemoteFetch`),
    /// through the configured proxy (docs/reference.md, "Outbound proxy").
    public init(
        configuration: Configuration, pool: ConnectionPool, logger: Logger, serverSecret: ServerSecret,
        metrics: ServerMetrics = ServerMetrics(), clock: any WallClock,
        jwksFetcher: (any JWKSFetcher)? = nil
    ) {
        self.configuration = configuration
        self.serverSecret = serverSecret
        self.pool = pool
        self.logger = logger
        self.metrics = metrics
        self.clock = clock
        self.jwksFetcher = jwksFetcher ?? HTTPJWKSFetcher(fetch: RemoteFetch(proxy: configuration.outboundProxy))
        self.formPoster = HTTPFormPoster(proxy: configuration.outboundProxy)
        self.remoteRequester = HTTPFormPoster(proxy: configuration.outboundProxy)
    }
}
