import Hummingbird

/// Which `Route` a request matched. The router has already resolved the path when middleware
/// runs (Hummingbird records the matched pattern as `endpointPath`), so `/oauth2/token/` and
/// `//oauth2/token` resolve to the same route as `/oauth2/token` (docs/reference.md, "Faults and bad input") without a second,
/// hand-written normalisation that could disagree with the router's.
struct RouteTable: Sendable {
    /// The path of `ISSUER_URL` (e.g. `/oidc`), or empty.
    let prefix: String
    private let routesByPattern: [String: Route]

    init(prefix: String) {
        self.prefix = prefix
        var routes: [String: Route] = [:]
        for route in Route.allCases {
            routes[RouterPath(route.registeredPath(prefix: prefix)).description] = route
        }
        routesByPattern = routes
    }

    /// The route whose pattern the router matched, nil for an unmatched request.
    func route(matched endpointPath: String?) -> Route? {
        endpointPath.flatMap { routesByPattern[$0] }
    }

    /// Whether an unmatched path lies where the OAuth endpoints live, so that even its `404` is
    /// RFC 6749 JSON (docs/reference.md, "Faults and bad input"). Compared by path segments, as the router compares them.
    func isUnderOAuthPaths(_ path: String) -> Bool {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        let prefixSegments = prefix.split(separator: "/", omittingEmptySubsequences: true)
        guard segments.count > prefixSegments.count, segments.starts(with: prefixSegments) else { return false }
        let first = segments[prefixSegments.count]
        return ["oauth2", "auth", "userinfo", "account"].contains(first)
    }
}
