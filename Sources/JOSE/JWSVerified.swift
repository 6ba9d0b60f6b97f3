import Foundation

/// The result of a successful JWS validation (RFC 7515 §5.2).
///
/// Only the payload bytes are returned: claim semantics (RFC 7519 §7.2, OIDC Core §3.1.3.7) belong to the caller,
/// who decodes them into its own types.
public struct JWSVerified: Sendable, Equatable {
    /// The protected header that was validated.
    public let header: JWSHeader
    /// The JWS payload (RFC 7515 §2), guaranteed to be a JSON object.
    public let payload: Data

    /// Creates a validation result (RFC 7515 §5.2); public so callers can build fixtures for their own tests.
    public init(header: JWSHeader, payload: Data) {
        self.header = header
        self.payload = payload
    }
}
