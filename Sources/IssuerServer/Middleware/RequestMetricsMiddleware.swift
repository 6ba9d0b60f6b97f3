import Hummingbird

/// Counts every request and its latency by matched route (not raw path, so that unknown paths
/// cannot blow up the label space) and status.
struct RequestMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        do {
            let response = try await next(request, context)
            record(request, context, status: response.status.code, start: start)
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            record(request, context, status: status, start: start)
            throw error
        }
    }

    private func record(_ request: Request, _ context: Context, status: Int, start: ContinuousClock.Instant) {
        ResponseStamp.record(
            metrics, route: context.endpointPath ?? ResponseStamp.unmatchedRoute, method: request.method.rawValue, status: status,
            since: start)
    }
}
