import Foundation
import HTTPTypes
import Hummingbird

/// docs/reference.md, "Browser clients": CORS on the routes the route table marks
/// `isCrossOrigin`, for the origins the clients list in `allowed_origins`.
///
/// - A preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`) from a listed
///   origin is answered `204` here, before the rate limit and the route, with the route's methods
///   and the request headers browser clients send.
/// - Every other answer of those routes to a listed origin, errors included (so that a browser can
///   read a `400`, `401` or `429`), echoes the origin and exposes `WWW-Authenticate` and
///   `Retry-After`. Never `Access-Control-Allow-Credentials`: the endpoints take bearer tokens
///   and bodies, not cookies.
/// - Any other origin, and any other route, gets no CORS field at all; a preflight from it is
///   answered as any `OPTIONS` is, `405` with `Allow`, which the browser takes as a refusal.
/// - While any origin is listed, every answer of those routes carries `Vary: Origin`, since it
///   depends on the request's `Origin` (RFC 9110 §12.5.5), so that no cache hands one origin's
///   answer to another.
struct CrossOriginMiddleware: RouterMiddleware {
    let allowedOrigins: Set<String>

    /// What browser clients send: a bearer token, a form or JSON body, and a DPoP proof (RFC 9449).
    static let allowedHeaders = "Authorization, Content-Type, DPoP"
    /// What a browser client must be able to read: the RFC 6750 §3 challenge, how long to
    /// wait after a `429` (RFC 6585 §4), and the nonce its next DPoP proof carries (RFC 9449 §8).
    static let exposedHeaders = "WWW-Authenticate, Retry-After, DPoP-Nonce"
    /// How long a browser may reuse a preflight answer, in seconds.
    static let preflightMaxAge = "600"

    func handle(
        _ request: Request, context: IssuerRequestContext, next: (Request, IssuerRequestContext) async throws -> Response
    ) async throws -> Response {
        guard let route = context.route, route.isCrossOrigin, !allowedOrigins.isEmpty else {
            return try await next(request, context)
        }
        let origin = request.headers[.origin].flatMap { allowedOrigins.contains($0) ? $0 : nil }
        if let origin, request.method == .options, request.headers[.accessControlRequestMethod] != nil {
            return preflight(origin: origin, route: route)
        }
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            // Rendered here, as RequestIDMiddleware would, so that the fields can be added.
            response = try error.response(from: request, context: context)
        }
        Self.addVaryOrigin(to: &response.headers)
        if let origin {
            response.headers[.accessControlAllowOrigin] = origin
            response.headers[.accessControlExposeHeaders] = Self.exposedHeaders
        }
        return response
    }

    private func preflight(origin: String, route: Route) -> Response {
        var headers: HTTPFields = [
            .accessControlAllowOrigin: origin,
            .accessControlAllowMethods: route.methods.map(\.rawValue).joined(separator: ", "),
            .accessControlAllowHeaders: Self.allowedHeaders,
            .accessControlMaxAge: Self.preflightMaxAge,
        ]
        Self.addVaryOrigin(to: &headers)
        return Response(status: .noContent, headers: headers)
    }

    /// Adds `Origin` to `Vary` unless it is there already (RFC 9110 §12.5.5).
    static func addVaryOrigin(to headers: inout HTTPFields) {
        let varied = headers[values: .vary].flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard !varied.contains("origin"), !varied.contains("*") else { return }
        headers.append(HTTPField(name: .vary, value: "Origin"))
    }
}
