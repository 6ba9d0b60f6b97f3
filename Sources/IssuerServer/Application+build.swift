import HummingbirdCore
import Hummingbird
import IssuerCore
import IssuerStorage
import Logging
import NIOCore
import Postgres
import ServiceLifecycle

/// Builds the issuer's HTTP application from its dependencies. `issuer serve` runs it; tests
/// drive the very same application in process (HummingbirdTesting).
public func buildApplication(_ dependencies: IssuerDependencies) -> some ApplicationProtocol {
    let configuration = dependencies.configuration
    let keys = KeyRingMonitor(
        store: KeyRingDirectory(directory: configuration.keysDirectory), clock: dependencies.clock, logger: dependencies.logger,
        signerTiming: SignerTiming(configuration: configuration), metrics: dependencies.metrics)
    keys.reload()
    dependencies.metrics.recordBuildInfo(dependencies.buildInfo)
    // One composition root: the routes and the background workers share these objects.
    let issuerServices = IssuerServices(dependencies, keys: keys)
    let routers = buildRouters(dependencies, keys: keys, services: issuerServices)
    // docs/reference.md, "Faults and bad input": a connection that sends no complete request within 30 s (a slow trickle
    // included) is closed; the idle timeout alone would be reset by every trickled byte. That
    // deadline also runs between requests, so it is the idle timeout too: Hummingbird's own
    // would not see the requests `StaticRouteHandler` answers, and close a busy connection.
    let server = IssuerHTTP1Channel.server(
        readTimeout: dependencies.requestReadTimeout, staticRoutes: routers.staticRoutes, metrics: dependencies.metrics)
    let operationsServer = IssuerHTTP1Channel.server(
        readTimeout: dependencies.requestReadTimeout, staticRoutes: StaticRoutes(entries: [:]), metrics: dependencies.metrics)
    var services: [any Service] = [
        DatabaseService(pool: dependencies.pool),
        KeyRingReloadService(monitor: keys, interval: configuration.keysReloadInterval),
        JanitorService(janitor: SessionJanitor(store: SessionJanitorStore(pool: dependencies.pool)), clock: dependencies.clock, logger: dependencies.logger),
        AppleCustodyService(
            custody: issuerServices.appleCustody, revocations: issuerServices.appleRevocations,
            notices: issuerServices.deletionNotices, receivedEvents: ReceivedEventStore(pool: dependencies.pool),
            dependencies: dependencies),
    ]
    // docs/reference.md, "Operations": the management listener runs beside the main one, in the same service group,
    // so both start, drain and stop together.
    if let operations = routers.operations, let port = configuration.operationsPort {
        services.append(Application(
            router: operations, server: operationsServer,
            configuration: ApplicationConfiguration(
                address: .hostname(configuration.operationsHost, port: port), serverName: ResponseStamp.serverName),
            logger: dependencies.logger))
    }
    return Application(
        router: routers.main,
        server: server,
        configuration: ApplicationConfiguration(
            address: .hostname(configuration.host, port: configuration.port),
            serverName: ResponseStamp.serverName),
        services: services,
        logger: dependencies.logger)
}

/// The routes and middleware. Every route and every policy that depends on the route comes from
/// one table (`Route`); operations endpoints sit at the root, everything else under the path of
/// `ISSUER_URL` (docs/reference.md, "Requests and errors"). With `ISSUER_OPS_PORT`, the operations routes get a router of their
/// own, for the management listener (docs/reference.md, "Operations"). The static routes are answered before the main
/// router by `StaticRouteHandler`, with the answers of the same endpoints.
func buildRouters(
    _ dependencies: IssuerDependencies, keys: KeyRingMonitor, services: IssuerServices
) -> (main: Router<IssuerRequestContext>, operations: Router<IssuerRequestContext>?, staticRoutes: StaticRoutes) {
    let configuration = dependencies.configuration
    let table = RouteTable(prefix: configuration.pathPrefix)
    let router = Router(context: IssuerRequestContext.self, options: .autoGenerateHeadEndpoints)
    let operationsRouter = configuration.operationsPort.map { _ in
        Router(context: IssuerRequestContext.self, options: .autoGenerateHeadEndpoints)
    }
    for router in [router] + (operationsRouter.map { [$0] } ?? []) {
        router.add(middleware: RequestIDMiddleware())
        router.add(middleware: RequestMetricsMiddleware(metrics: dependencies.metrics))
        router.add(middleware: RouteResolutionMiddleware(table: table, trustedProxies: configuration.trustedProxies))
    }
    // Outside the error shaping and the rate limit, so that their answers carry CORS too, and a
    // preflight is answered before either (docs/reference.md, "Browser clients").
    router.add(middleware: CrossOriginMiddleware(allowedOrigins: configuration.clients.allowedOrigins))
    // docs/reference.md, "DPoP": with server nonces on, every answer of a token endpoint, its
    // errors included, names the nonce for the next proof.
    if let nonces = services.dpop.nonces {
        router.add(middleware: DPoPNonceMiddleware(nonces: nonces))
    }
    router.add(middleware: OAuthErrorMiddleware(table: table))
    if let limit = configuration.rateLimit {
        router.add(middleware: RateLimitMiddleware(limiter: RateLimiter(limit: limit, clock: dependencies.clock)))
    }
    // docs/reference.md, "UserInfo" and "DPoP": the access token of the routes that take one,
    // verified once (a bound one only with a proof from its key) and put on the request context.
    router.add(middleware: AccessTokenAuthenticationMiddleware(
        proofs: services.dpop,
        verifier: services.accessTokens,
        ring: { keys.current.ring }, pathPrefix: configuration.pathPrefix))
    // docs/reference.md, "Two proofs of one session": an account change's refresh token, read
    // from its body only once the bearer passed.
    router.add(middleware: SessionProofMiddleware(proof: services.sessionProof))

    let routes = RouteRegistrar(router: router, operationsRouter: operationsRouter, table: table)
    OperationsEndpoints(
        readiness: Readiness(checks: [
            .database(ReadinessStore(pool: dependencies.pool)),
            Readiness.Check(name: "signing key") { keys.current.ring.active != nil },
        ]),
        metrics: dependencies.metrics,
        pool: dependencies.pool,
        keys: keys,
        clock: dependencies.clock
    ).register(on: routes)

    let jwks = JWKSEndpoint(monitor: keys)
    jwks.register(on: routes)
    AppleExchangeEndpoint(exchange: services.appleExchange, dpop: services.dpop, metrics: dependencies.metrics).register(on: routes)
    ProviderExchangeEndpoint(exchanges: services.exchanges, dpop: services.dpop, metrics: dependencies.metrics).register(on: routes)
    // docs/reference.md, "The pages people see": one renderer for every page, its logos served by the issuer itself.
    let pages = PageRenderer(pages: configuration.pages, displayName: configuration.pagesDisplayName, pathPrefix: table.prefix)
    AuthorizationEndpoint(hostedSignIn: services.hostedSignIn, pages: pages).register(on: routes)
    AppleCallbackEndpoint(hostedSignIn: services.hostedSignIn, pages: pages).register(on: routes)
    ProviderCallbackEndpoint(hostedSignIn: services.hostedSignIn, pages: pages).register(on: routes)
    LogoutEndpoint(endSession: services.endSession, pages: pages).register(on: routes)
    PageAssetEndpoint(images: configuration.pages.images.values).register(on: routes)
    TokenEndpoint(
        exchanges: services.exchanges, clients: configuration.clients, refresh: services.refresh, authorizationCode: services.authorizationCode,
        dpop: services.dpop, metrics: dependencies.metrics
    ).register(on: routes)
    RevocationEndpoint(revocation: services.revocation).register(on: routes)
    UserInfoEndpoint(service: services.userInfo).register(on: routes)
    AccountEndpoint(accounts: services.accounts, identities: services.accountIdentities).register(on: routes)
    AccountIdentitiesEndpoint(identities: services.accountIdentities).register(on: routes)
    AccountSessionsEndpoint(sessions: services.accountSessions).register(on: routes)
    AppleNotificationsEndpoint(notifications: services.appleNotifications).register(on: routes)
    // docs/reference.md, "Google's account-protection events": only where a provider of kind `google` is configured (else 404).
    if let receiver = services.googleRISC {
        GoogleRISCEndpoint(receiver: receiver).register(on: routes)
    }
    // docs/reference.md, "Facebook's callbacks": only where a provider of kind `facebook` is configured (else 404).
    if !services.providerCallbacks.isEmpty {
        ProviderCallbacksEndpoint(callbacks: services.providerCallbacks, pages: pages).register(on: routes)
    }
    // Last, so that it advertises exactly what was registered above.
    let discovery = DiscoveryEndpoint(document: DiscoveryDocument(
        configuration: configuration, served: routes.served + [.openIDConfiguration, .authorizationServerMetadata],
        grantTypes: TokenEndpoint.grantTypes))
    discovery.register(on: routes)
    let staticRoutes = StaticRoutes(entries: Dictionary(
        uniqueKeysWithValues: [jwks.staticEntry(path: Route.jwks.registeredPath(prefix: table.prefix))]
            + discovery.staticEntries(paths: [Route.openIDConfiguration, .authorizationServerMetadata].map {
                $0.registeredPath(prefix: table.prefix)
            })))
    return (router, operationsRouter, staticRoutes)
}
