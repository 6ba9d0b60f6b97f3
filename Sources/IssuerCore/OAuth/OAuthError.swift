/// An error answered to a client, as RFC 6749 §5.2 defines it: a code, a description safe to
/// show the client, and, for the log only, what really happened.
///
/// Storage and library errors never reach a client as such: the service that meets one decides
/// what it means (a unique violation on a code is `invalid_grant`; an unreachable database is
/// `temporarily_unavailable`), and anything unexpected becomes `server_error` with a generic text.
public struct OAuthError: Error, Sendable, Equatable, CustomStringConvertible {
    /// RFC 6749 §5.2 and §4.1.2.1 error codes, RFC 6750 §3.1's `invalid_token`, RFC 9449's
    /// `invalid_dpop_proof` and `use_dpop_nonce` (docs/reference.md, "DPoP"), and the account
    /// conflicts of linked identities (docs/reference.md, "Linked identities"), all `409`.
    public enum Code: String, Sendable {
        case invalidRequest = "invalid_request"
        case invalidClient = "invalid_client"
        case invalidGrant = "invalid_grant"
        case unauthorizedClient = "unauthorized_client"
        case unsupportedGrantType = "unsupported_grant_type"
        case invalidScope = "invalid_scope"
        case accessDenied = "access_denied"
        case unsupportedResponseType = "unsupported_response_type"
        case temporarilyUnavailable = "temporarily_unavailable"
        case serverError = "server_error"
        case invalidToken = "invalid_token"
        case invalidDPoPProof = "invalid_dpop_proof"
        case useDPoPNonce = "use_dpop_nonce"
        case identityInUse = "identity_in_use"
        case providerAlreadyLinked = "provider_already_linked"
        case lastIdentity = "last_identity"
    }

    /// RFC 6749 §5.2 `error`.
    public let code: Code
    /// `error_description`: human-readable, for the client's developer, never a secret.
    public let description: String
    /// Log-only detail: why exactly, with no token or secret in it.
    public let debug: String?
    /// The HTTP status: 400 for client mistakes (RFC 6749 §5.2), 401 for a bad client or
    /// token, 429 or 503 when the client should retry, 500 only for our own faults.
    public let statusCode: Int
    /// `Retry-After` seconds, for 429 and 503.
    public let retryAfter: Int?

    /// A nil `status` takes the code's usual one: 401 `invalid_token`, 503 `temporarily_unavailable`,
    /// 500 `server_error`, 400 otherwise.
    public init(_ code: Code, _ description: String, debug: String? = nil, status: Int? = nil, retryAfter: Int? = nil) {
        self.code = code
        self.description = Self.descriptionCharacters(description)
        self.debug = debug
        self.statusCode = status ?? Self.defaultStatus(code)
        self.retryAfter = retryAfter
    }

    /// RFC 6749 §5.2: `error_description` is limited to %x20-21 / %x23-5B / %x5D-7E. A
    /// description may quote what the client sent (a parameter's name), so anything else is
    /// percent-encoded here, where every description passes, and the text is bounded.
    static func descriptionCharacters(_ text: String) -> String {
        let allowed: (UInt8) -> Bool = { byte in
            (0x20...0x7E).contains(byte) && byte != 0x22 && byte != 0x5C
        }
        var bytes = Array(text.utf8)
        if bytes.count > 512 { bytes = Array(bytes.prefix(509)) + Array("...".utf8) }
        guard !bytes.allSatisfy(allowed) else { return String(decoding: bytes, as: UTF8.self) }
        var result = ""
        for byte in bytes {
            if allowed(byte) {
                result.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                result += "%" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            }
        }
        return result
    }

    private static func defaultStatus(_ code: Code) -> Int {
        switch code {
        case .invalidToken: return 401
        case .temporarilyUnavailable: return 503
        case .serverError: return 500
        case .identityInUse, .providerAlreadyLinked, .lastIdentity: return 409
        default: return 400
        }
    }

    /// RFC 6749 §5.2 `invalid_request` (400): a parameter is missing, repeated or malformed.
    public static func invalidRequest(_ description: String, debug: String? = nil) -> OAuthError {
        OAuthError(.invalidRequest, description, debug: debug)
    }

    /// RFC 6749 §5.2 `invalid_grant` (400): the grant is invalid, expired, revoked or another client's.
    public static func invalidGrant(_ description: String, debug: String? = nil) -> OAuthError {
        OAuthError(.invalidGrant, description, debug: debug)
    }

    /// RFC 9449 §5 `invalid_dpop_proof` (400): the token request's `DPoP` proof is missing where
    /// required, malformed, or fails a check (docs/reference.md, "DPoP").
    public static func invalidDPoPProof(_ description: String, debug: String? = nil) -> OAuthError {
        OAuthError(.invalidDPoPProof, description, debug: debug)
    }

    /// RFC 9449 §8 `use_dpop_nonce` (400): the proof lacks the server's current nonce; the answer
    /// carries the one to use (`DPoP-Nonce`) and nothing else happened.
    public static func useDPoPNonce(_ description: String) -> OAuthError {
        OAuthError(.useDPoPNonce, description)
    }

    /// RFC 6749 §5.2 `invalid_scope` (400): a scope the client may not have or the grant never included.
    public static func invalidScope(_ description: String, debug: String? = nil) -> OAuthError {
        OAuthError(.invalidScope, description, debug: debug)
    }

    /// RFC 6749 §4.1.2.1 `temporarily_unavailable` (503) with `Retry-After`: the client should retry later.
    public static func temporarilyUnavailable(_ description: String, debug: String? = nil, retryAfter: Int = 5) -> OAuthError {
        OAuthError(.temporarilyUnavailable, description, debug: debug, retryAfter: retryAfter)
    }

    /// Our fault: a generic text for the client, the detail for the log.
    public static func serverError(debug: String) -> OAuthError {
        OAuthError(.serverError, "The server could not complete the request.", debug: debug)
    }

    /// Equal when code, description and status match; `debug` and `retryAfter` are not compared.
    public static func == (lhs: OAuthError, rhs: OAuthError) -> Bool {
        lhs.code == rhs.code && lhs.description == rhs.description && lhs.statusCode == rhs.statusCode
    }
}
