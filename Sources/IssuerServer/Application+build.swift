import Hummingbird
import IssuerCore
import Logging
import Postgres

/// Builds the issuer's HTTP application from its dependencies. `issuer serve` runs it; tests
/// drive the very same application in process (HummingbirdTesting).
public func buildApplication(_ dependencies: IssuerDependencies) -> some ApplicationProtocol {
    let configuration = dependencies.configuration
    let keys = KeyRingMonitor(
        store: KeyRingStore(directory: configuration.keysDirectory), clock: dependencies.clock, logger: dependencies.logger,
        signerTiming: SignerTiming(configuration: configuration))
    keys.reload()
    let router = buildRouter(dependencies, keys: keys)
    return Application(
        router: router,
        configuration: ApplicationConfiguration(
            address: .hostname(configuration.host, port: configuration.port),
            serverName: "issuer"),
        services: [
            DatabaseService(pool: dependencies.pool),
            KeyRingReloadService(monitor: keys, interval: configuration.keysReloadInterval),
            JanitorService(janitor: SessionJanitor(pool: dependencies.pool), clock: dependencies.clock, logger: dependencies.logger),
        ],
        logger: dependencies.logger)
}

/// The routes and middleware. Operations endpoints sit at the root; everything else under the
/// path of `ISSUER_URL` (SPEC §3).
func buildRouter(_ dependencies: IssuerDependencies, keys: KeyRingMonitor) -> Router<IssuerRequestContext> {
    let configuration = dependencies.configuration
    let prefix = configuration.pathPrefix
    let router = Router(context: IssuerRequestContext.self)
    router.add(middleware: RequestIDMiddleware())
    router.add(middleware: RequestMetricsMiddleware(metrics: dependencies.metrics))
    router.add(middleware: OAuthErrorMiddleware(
        prefixes: ["/oauth2/", "/auth/", "/userinfo", "/account"].map { prefix + $0 },
        methods: [
            "/oauth2/token": [.post], "/oauth2/revoke": [.post], "/auth/apple/exchange": [.post],
            "/userinfo": [.get, .post], "/oauth2/jwks.json": [.get],
        ].reduce(into: [:]) { $0[prefix + $1.key] = $1.value }))
    if let limit = configuration.rateLimit {
        router.add(middleware: RateLimitMiddleware(
            limiter: RateLimiter(limit: limit, clock: dependencies.clock),
            paths: Set(["/auth/apple/exchange", "/oauth2/token", "/oauth2/revoke", "/oauth2/authorize", "/auth/apple/callback"].map { prefix + $0 }),
            trustedProxies: configuration.trustedProxies))
    }

    OperationsEndpoints(
        readiness: Readiness(checks: [
            .database(dependencies.pool),
            Readiness.Check(name: "signing key") { keys.current.ring.active != nil },
        ]),
        metrics: dependencies.metrics,
        pool: dependencies.pool
    ).register(on: router)

    let services = IssuerServices(dependencies, keys: keys)
    JWKSEndpoint(monitor: keys).register(on: router, prefix: prefix)
    AppleExchangeEndpoint(exchange: services.appleExchange, trustedProxies: configuration.trustedProxies, metrics: dependencies.metrics)
        .register(on: router, prefix: prefix)
    TokenEndpoint(
        exchange: services.appleExchange, refresh: services.refresh, trustedProxies: configuration.trustedProxies,
        metrics: dependencies.metrics
    ).register(on: router, prefix: prefix)
    RevocationEndpoint(revocation: services.revocation).register(on: router, prefix: prefix)
    UserInfoEndpoint(service: services.userInfo).register(on: router, prefix: prefix)
    DiscoveryEndpoint(document: DiscoveryDocument(
        configuration: configuration,
        served: .init(
            appleExchange: true, tokenEndpoint: true, grantTypes: TokenEndpoint.grantTypes, revocation: true, userinfo: true))
    ).register(on: router, prefix: prefix)
    return router
}
