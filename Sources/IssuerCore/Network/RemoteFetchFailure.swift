/// Why a fetch of a remote document (a provider's discovery document or JWK Set) failed, as log
/// lines, the `reason` label of `issuer_jwks_fetch_failures_total` and `issuer doctor` name it
/// (docs/reference.md, "Faults and bad input"). A closed set, so that a label never carries a URL
/// or words a remote party chose, and an operator can tell a provider that is down from one that
/// answers with something the issuer refuses.
public enum RemoteFetchFailure: String, Sendable, CaseIterable {
    /// No complete answer within the deadline.
    case timedOut = "timed_out"
    /// The connection failed: refused, reset, a name that does not resolve, TLS.
    case connectionFailed = "connection_failed"
    /// A 3xx: redirects are not followed.
    case redirected
    /// The body is over the cap.
    case tooLarge = "too_large"
    /// An HTTP status other than 2xx.
    case httpStatus = "http_status"
    /// A URL that is not `https` (nor `http` to loopback where that is allowed).
    case insecureURL = "insecure_url"
    /// The body is not JSON, or not the object expected (a discovery document, a JWK Set).
    case notJSON = "not_json"
    /// The discovery document names another issuer (OpenID Connect Discovery 1.0 §4.3).
    case issuerMismatch = "issuer_mismatch"
    /// The document lacks what is needed: a discovery document without `jwks_uri`, a JWK Set
    /// without a usable RS256 or ES256 key.
    case incomplete
    /// Anything else.
    case other

    /// The reason `error` gives, or `other` when it gives none.
    public init(of error: any Error) {
        self = (error as? any RemoteFetchFailureReporting)?.fetchFailure ?? .other
    }

    /// In words, for a log line or `issuer doctor`.
    public var summary: String {
        switch self {
        case .timedOut: "timed out"
        case .connectionFailed: "connection failed"
        case .redirected: "redirect refused"
        case .tooLarge: "answer too large"
        case .httpStatus: "HTTP error status"
        case .insecureURL: "not https"
        case .notJSON: "not the JSON expected"
        case .issuerMismatch: "issuer mismatch"
        case .incomplete: "incomplete document"
        case .other: "failed"
        }
    }
}
