/// Why an exchange with a remote party failed (docs/reference.md, "Faults and bad input"): each is a failed fetch, handled as in
/// docs/reference.md, "Native sign-in" and "Account deletion", never a reason to stop.
enum RemoteFetchError: Error, Equatable, CustomStringConvertible {
    /// Plain `http` to a host that is not loopback; also refused at start by configuration.
    case insecureURL
    /// The whole exchange, body included, did not finish within the deadline.
    case timedOut
    /// The body is over the cap (announced or streamed).
    case tooLarge(limit: Int)
    /// A 3xx: redirects are not followed, so an endpoint cannot send the issuer elsewhere.
    case redirected(status: Int)
    /// An answer other than the one the caller expects (a JWKS wants 2xx).
    case status(Int)
    /// The connection failed (refused, reset, TLS).
    case transport(String)

    var description: String {
        switch self {
        case .insecureURL: "refused: plain http to a host that is not loopback"
        case .timedOut: "no complete answer within the deadline"
        case .tooLarge(let limit): "answer larger than \(limit) bytes"
        case .redirected(let status): "HTTP \(status) redirect, not followed"
        case .status(let status): "HTTP \(status)"
        case .transport(let problem): problem
        }
    }
}
