import HTTPTypes
import Hummingbird
import IssuerCore
import Logging

/// SPEC §7: on the OAuth endpoints even the framework's own errors (404, 405, 413) are RFC 6749
/// §5.2 JSON, and anything unexpected becomes `500 server_error` with a generic text and a log
/// line carrying the request id (ARCHITECTURE §8). Errors elsewhere keep Hummingbird's
/// rendering.
struct OAuthErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Path prefixes of the OAuth endpoints, e.g. `/oidc/oauth2/`.
    let prefixes: [String]
    /// The methods each OAuth path serves: a request for a known path with another method is
    /// `405` with `Allow` (RFC 9110 §15.5.6), not the router's `404`.
    let methods: [String: [HTTPRequest.Method]]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as OAuthError {
            log(error, context)
            throw error
        } catch {
            guard prefixes.contains(where: request.uri.path.hasPrefix) else { throw error }
            let mapped: OAuthError
            if let allowed = methods[request.uri.path], !allowed.contains(request.method) {
                let refusal = OAuthError(.invalidRequest, "Method not allowed on this endpoint.", status: 405)
                log(refusal, context)
                var response = try refusal.response(from: request, context: context)
                response.headers[.allow] = allowed.map(\.rawValue).joined(separator: ", ")
                return response
            }
            if let httpError = error as? any HTTPResponseError {
                let code = Int(httpError.status.code)
                switch code {
                case 404: mapped = OAuthError(.invalidRequest, "No such endpoint.", status: 404)
                case 405: mapped = OAuthError(.invalidRequest, "Method not allowed on this endpoint.", status: 405)
                case 413: mapped = OAuthError(.invalidRequest, "The request body is larger than 64 KiB.", status: 413)
                case 400..<500: mapped = OAuthError(.invalidRequest, "The request is malformed.", status: code)
                default: mapped = .serverError(debug: "\(error)")
                }
            } else {
                mapped = .serverError(debug: "\(error)")
            }
            log(mapped, context)
            throw mapped
        }
    }

    private func log(_ error: OAuthError, _ context: Context) {
        let metadata: Logger.Metadata = ["error": "\(error.code.rawValue)", "detail": "\(error.debug ?? error.description)"]
        if error.statusCode >= 500 && error.code != .temporarilyUnavailable {
            context.logger.error("request failed", metadata: metadata)
        } else {
            context.logger.info("request refused", metadata: metadata)
        }
    }
}
