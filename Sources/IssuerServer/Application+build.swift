import Hummingbird
import IssuerCore
import Logging
import Postgres

/// The request context of every route.
public typealias IssuerRequestContext = BasicRequestContext

/// Builds the issuer's HTTP application from its dependencies. `issuer serve` runs it; tests
/// drive the very same application in process (HummingbirdTesting).
public func buildApplication(_ dependencies: IssuerDependencies) -> some ApplicationProtocol {
    let configuration = dependencies.configuration
    let router = buildRouter(dependencies)
    return Application(
        router: router,
        configuration: ApplicationConfiguration(
            address: .hostname(configuration.host, port: configuration.port),
            serverName: "issuer"),
        services: [DatabaseService(pool: dependencies.pool)],
        logger: dependencies.logger)
}

/// The routes and middleware, separate from the server so that tests can use either.
public func buildRouter(_ dependencies: IssuerDependencies) -> Router<IssuerRequestContext> {
    let router = Router(context: IssuerRequestContext.self)
    router.add(middleware: RequestIDMiddleware())
    router.add(middleware: RequestMetricsMiddleware(metrics: dependencies.metrics))
    OperationsEndpoints(
        readiness: Readiness(checks: [.database(dependencies.pool)]),
        metrics: dependencies.metrics,
        pool: dependencies.pool
    ).register(on: router)
    return router
}
