import HTTPTypes
import Hummingbird

/// Returns the request id that every log line of the request carries (`hb.request.id`) as
/// `X-Request-Id`, on errors too, so that a client's report can be matched to the server's logs.
struct RequestIDMiddleware<Context: RequestContext>: RouterMiddleware {
    static var headerName: HTTPField.Name { HTTPField.Name("X-Request-Id")! }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            // Rendered here rather than by the server, so the header can be added.
            response = try error.response(from: request, context: context)
        }
        response.headers[Self.headerName] = context.id
        return response
    }
}
