import HTTPTypes
import Hummingbird
import IssuerCore
import Logging

/// docs/reference.md, "Faults and bad input": on the OAuth routes even the framework's own errors (404, 405, 413) are RFC 6749
/// §5.2 JSON, and anything unexpected becomes `500 server_error` with a generic text and a log
/// line carrying the request id (docs/design.md, "Errors"). The route table says which routes are OAuth
/// routes; an unmatched path is shaped so when it lies under the OAuth paths. Errors elsewhere
/// keep Hummingbird's rendering.
struct OAuthErrorMiddleware: RouterMiddleware {
    let table: RouteTable

    func handle(
        _ request: Request, context: IssuerRequestContext, next: (Request, IssuerRequestContext) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as OAuthError {
            log(error, context)
            throw error
        } catch {
            let isOAuth = context.route.map { $0.errorStyle == .oauth } ?? table.isUnderOAuthPaths(request.uri.path)
            guard isOAuth else { throw error }
            if let refusal = error as? MethodNotAllowed {
                let mapped = OAuthError(.invalidRequest, "Method not allowed on this endpoint.", status: 405)
                log(mapped, context)
                var response = try mapped.response(from: request, context: context)
                response.headers[.allow] = refusal.allowHeader
                return response
            }
            let mapped: OAuthError
            if let httpError = error as? any HTTPResponseError {
                let code = Int(httpError.status.code)
                switch code {
                case 404: mapped = OAuthError(.invalidRequest, "No such endpoint.", status: 404)
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

    private func log(_ error: OAuthError, _ context: IssuerRequestContext) {
        let metadata: Logger.Metadata = ["error": "\(error.code.rawValue)", "detail": "\(error.debug ?? error.description)"]
        if error.statusCode >= 500 && error.code != .temporarilyUnavailable {
            context.logger.error("request failed", metadata: metadata)
        } else {
            context.logger.info("request refused", metadata: metadata)
        }
    }
}
