import HTTPTypes
import Hummingbird

/// Returns the request id that every log line of the request carries (`hb.request.id`) on every
/// answer, errors too, as `ResponseStamp` defines it for both paths.
struct RequestIDMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            // Rendered here rather than by the server, so the header can be added.
            response = try error.response(from: request, context: context)
        }
        ResponseStamp.stamp(&response, requestID: context.id)
        return response
    }
}
