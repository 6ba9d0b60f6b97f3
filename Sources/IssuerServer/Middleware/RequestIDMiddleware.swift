import HTTPTypes
import Hummingbird

/// Returns the request id that every log line of the request carries (`hb.request.id`) as
/// `X-Request-Id`, so that a client's report can be matched to the server's logs.
struct RequestIDMiddleware<Context: RequestContext>: RouterMiddleware {
    static var headerName: HTTPField.Name { HTTPField.Name("X-Request-Id")! }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        response.headers[Self.headerName] = context.id
        return response
    }
}
