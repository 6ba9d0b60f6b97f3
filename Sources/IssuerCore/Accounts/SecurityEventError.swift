/// Why a Security Event Token (RFC 8417) was refused, as RFC 8935 §2.4 answers it: `400` with
/// `{"err": code, "description": …}`, nothing changed (docs/reference.md, "Google's account-protection events").
public struct SecurityEventError: Error, Sendable, Equatable, CustomStringConvertible {
    /// RFC 8935 §2.4.1's error codes.
    public enum Code: String, Sendable {
        /// The body is not a SET, or an event in it does not conform to its definition.
        case invalidRequest = "invalid_request"
        /// The key that signed it is unknown or unacceptable (an `alg` it may not use).
        case invalidKey = "invalid_key"
        /// Its `iss` is not the sender's.
        case invalidIssuer = "invalid_issuer"
        /// Its `aud` is not ours.
        case invalidAudience = "invalid_audience"
        /// Its signature does not verify: the sender is not authenticated.
        case authenticationFailed = "authentication_failed"
        /// The sender may not send it here.
        case accessDenied = "access_denied"
    }

    /// RFC 8935 §2.4 `err`.
    public let code: Code
    /// RFC 8935 §2.4 `description`: for the sender's operators, never a secret.
    public let description: String
    /// Log-only detail.
    public let debug: String

    public init(_ code: Code, _ description: String, debug: String? = nil) {
        self.code = code
        self.description = description
        self.debug = debug ?? description
    }
}
