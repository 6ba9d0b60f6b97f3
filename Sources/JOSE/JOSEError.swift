/// Failures raised while parsing keys or producing and verifying JWS objects (RFC 7515).
///
/// Descriptions are deliberately fixed strings: tokens and headers are attacker-controlled, and echoing
/// them into logs would turn this type into an injection and data-leak vector.
public enum JOSEError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The serialization violates RFC 7515 §7.1 (segments, base64url, or JSON structure).
    case malformed
    /// The token is longer than the caller's bound. RFC 7515 sets no limit, so this is our own guard, checked before any
    /// parsing to cap the work an unauthenticated sender can cause.
    case tooLarge
    /// The `alg` header parameter (RFC 7515 §4.1.1) is missing, not in the caller's allow-list, or not the algorithm
    /// of the verification key (RFC 8725 §3.1).
    case unsupportedAlgorithm
    /// A `crit` header parameter (RFC 7515 §4.1.11) is present; no extensions are understood, so it must be rejected.
    case criticalHeader
    /// The key lookup returned no key for the header (RFC 7515 §6: key selection is the application's job).
    case unknownKey
    /// The JWS signature (RFC 7515 §5.2 step 8) does not verify under the selected key.
    case badSignature
    /// Key material is unusable: wrong key type, too small, or not decodable (RFC 7517 §4, RFC 7518 §3.3, §6.3).
    case invalidKey
    /// libcrypto failed for a reason that is not the caller's input; carries OpenSSL's own error text.
    case openSSL(String)

    /// A fixed, content-free description so that errors can be logged safely; token contents are attacker-controlled.
    public var description: String {
        switch self {
        case .malformed: "malformed JWS compact serialization"
        case .tooLarge: "JWS exceeds the maximum allowed length"
        case .unsupportedAlgorithm: "JWS algorithm missing or not allowed"
        case .criticalHeader: "JWS carries a critical header extension that is not supported"
        case .unknownKey: "no key available for the JWS header"
        case .badSignature: "JWS signature verification failed"
        case .invalidKey: "invalid or unsupported key"
        case .openSSL(let detail): "OpenSSL failure: \(detail)"
        }
    }
}
