import HTTPTypes
import Hummingbird

/// Registers each endpoint under its `Route`: the served methods get the handler, every other
/// common method gets a `405` with `Allow` (RFC 9110 §15.5.6), so a wrong method is a matched
/// route like any other and gets that route's error shape. Remembers what was registered, which
/// is what discovery advertises (docs/reference.md, "Discovery"). With a management router (docs/reference.md, "Operations",
/// `ISSUER_OPS_PORT`), the operations routes are registered there and nowhere else.
final class RouteRegistrar {
    typealias Handler = @Sendable (Request, IssuerRequestContext) async throws -> Response

    let router: Router<IssuerRequestContext>
    let operationsRouter: Router<IssuerRequestContext>?
    let table: RouteTable
    private(set) var served: [Route] = []

    /// Methods that get a `405` when a route does not serve them. `HEAD` of a `GET` route is
    /// answered by the router's generated `HEAD` endpoint instead.
    private static let knownMethods: [HTTPRequest.Method] = [.get, .head, .post, .put, .delete, .patch, .options]

    init(router: Router<IssuerRequestContext>, operationsRouter: Router<IssuerRequestContext>? = nil, table: RouteTable) {
        self.router = router
        self.operationsRouter = operationsRouter
        self.table = table
    }

    /// The router `route` belongs on.
    func router(for route: Route) -> Router<IssuerRequestContext> {
        route.isOperations ? operationsRouter ?? router : router
    }

    func add(_ route: Route, use handler: @escaping Handler) {
        precondition(!served.contains(route), "\(route) registered twice")
        served.append(route)
        let path = RouterPath(route.registeredPath(prefix: table.prefix))
        let router = router(for: route)
        for method in route.methods {
            router.on(path, method: method, use: handler)
        }
        let allowed = Self.allowed(route)
        let refusal: Handler = { _, _ in
            throw MethodNotAllowed(allowed: allowed)
        }
        for method in Self.knownMethods where !allowed.contains(method) {
            router.on(path, method: method, use: refusal)
        }
    }

    /// The `Allow` list: the served methods, plus `HEAD` wherever `GET` is served.
    static func allowed(_ route: Route) -> [HTTPRequest.Method] {
        route.methods.contains(.get) ? route.methods + [.head] : route.methods
    }
}

/// A known route asked with a method it does not serve (RFC 9110 §15.5.6): `405` with `Allow`.
/// Shaped as RFC 6749 JSON by `OAuthErrorMiddleware` on the OAuth routes.
struct MethodNotAllowed: HTTPResponseError {
    let allowed: [HTTPRequest.Method]

    var allowHeader: String { allowed.map(\.rawValue).joined(separator: ", ") }

    var status: HTTPResponse.Status { .methodNotAllowed }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        Response(status: .methodNotAllowed, headers: [.allow: allowHeader])
    }
}
