import Hummingbird
import IssuerCore
import Logging
import NIOCore
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
    let requestTimeout = dependencies.requestReadTimeout
    return Application(
        router: router,
        // SPEC §7: a connection that sends no complete request within 30 s (a slow trickle
        // included) is closed; the idle timeout alone would be reset by every trickled byte.
        server: .http1(configuration: .init(
            additionalChannelHandlers: [RequestReadTimeoutHandler(limit: requestTimeout)], idleTimeout: requestTimeout)),
        configuration: ApplicationConfiguration(
            address: .hostname(configuration.host, port: configuration.port),
            serverName: "issuer"),
        services: [
            DatabaseService(pool: dependencies.pool),
            KeyRingReloadService(monitor: keys, interval: configuration.keysReloadInterval),
            JanitorService(janitor: SessionJanitor(pool: dependencies.pool), clock: dependencies.clock, logger: dependencies.logger),
            AppleCustodyService(dependencies),
        ],
        logger: dependencies.logger)
}

/// The routes and middleware. Every route and every policy that depends on the route comes from
/// one table (`Route`); operations endpoints sit at the root, everything else under the path of
/// `ISSUER_URL` (SPEC §3).
func buildRouter(_ dependencies: IssuerDependencies, keys: KeyRingMonitor) -> Router<IssuerRequestContext> {
    let configuration = dependencies.configuration
    let table = RouteTable(prefix: configuration.pathPrefix)
    let router = Router(context: IssuerRequestContext.self, options: .autoGenerateHeadEndpoints)
    router.add(middleware: RequestIDMiddleware())
    router.add(middleware: RequestMetricsMiddleware(metrics: dependencies.metrics))
    router.add(middleware: RouteResolutionMiddleware(table: table, trustedProxies: configuration.trustedProxies))
    router.add(middleware: OAuthErrorMiddleware(table: table))
    if let limit = configuration.rateLimit {
        router.add(middleware: RateLimitMiddleware(limiter: RateLimiter(limit: limit, clock: dependencies.clock)))
    }

    let routes = RouteRegistrar(router: router, table: table)
    OperationsEndpoints(
        readiness: Readiness(checks: [
            .database(dependencies.pool),
            Readiness.Check(name: "signing key") { keys.current.ring.active != nil },
        ]),
        metrics: dependencies.metrics,
        pool: dependencies.pool
    ).register(on: routes)

    let services = IssuerServices(dependencies, keys: keys)
    JWKSEndpoint(monitor: keys).register(on: routes)
    AppleExchangeEndpoint(exchange: services.appleExchange, metrics: dependencies.metrics).register(on: routes)
    AuthorizationEndpoint(hostedSignIn: services.hostedSignIn).register(on: routes)
    AppleCallbackEndpoint(hostedSignIn: services.hostedSignIn).register(on: routes)
    LogoutEndpoint(endSession: services.endSession).register(on: routes)
    TokenEndpoint(
        exchange: services.appleExchange, refresh: services.refresh, authorizationCode: services.authorizationCode,
        metrics: dependencies.metrics
    ).register(on: routes)
    RevocationEndpoint(revocation: services.revocation).register(on: routes)
    UserInfoEndpoint(service: services.userInfo).register(on: routes)
    AccountEndpoint(accounts: services.accounts).register(on: routes)
    AppleNotificationsEndpoint(notifications: services.appleNotifications).register(on: routes)
    // Last, so that it advertises exactly what was registered above.
    DiscoveryEndpoint(document: DiscoveryDocument(
        configuration: configuration, served: routes.served + [.openIDConfiguration, .authorizationServerMetadata],
        grantTypes: TokenEndpoint.grantTypes)
    ).register(on: routes)
    return router
}
