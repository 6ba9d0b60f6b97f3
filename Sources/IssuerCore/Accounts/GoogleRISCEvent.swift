import Foundation

/// One event of a Google security event token (docs/reference.md, "Google's account-protection events"): a member of its `events`
/// claim (RFC 8417 §2.2), the event type's URI mapped to an object with the `subject` it concerns.
struct GoogleRISCEvent: Sendable, Equatable {
    /// What happened; the table (docs/reference.md, "Google's account-protection events").
    enum Kind: Sendable, Equatable {
        case sessionsRevoked
        case tokensRevoked
        case accountDisabled
        case accountEnabled
        case accountPurged
        case credentialChangeRequired
        case verification
        case unknown

        /// RISC event types (OpenID RISC Event Types 1.0) under their one prefix;
        /// `tokens-revoked` is also written under the OAuth event types' prefix, as Google sends it.
        static let prefix = "https://schemas.openid.net/secevent/risc/event-type/"
        static let oauthPrefix = "https://schemas.openid.net/secevent/oauth/event-type/"

        init(uri: String) {
            let name: Substring
            if uri.hasPrefix(Self.prefix) {
                name = uri.dropFirst(Self.prefix.count)
            } else if uri == Self.oauthPrefix + "tokens-revoked" {
                name = "tokens-revoked"
            } else {
                self = .unknown
                return
            }
            switch name {
            case "sessions-revoked": self = .sessionsRevoked
            case "tokens-revoked": self = .tokensRevoked
            case "account-disabled": self = .accountDisabled
            case "account-enabled": self = .accountEnabled
            case "account-purged": self = .accountPurged
            case "account-credential-change-required": self = .credentialChangeRequired
            case "verification": self = .verification
            default: self = .unknown
            }
        }

        /// The name metrics and logs use; an unknown type is `other`, so a sender cannot grow the
        /// metric's label set.
        var name: String {
            switch self {
            case .sessionsRevoked: "sessions-revoked"
            case .tokensRevoked: "tokens-revoked"
            case .accountDisabled: "account-disabled"
            case .accountEnabled: "account-enabled"
            case .accountPurged: "account-purged"
            case .credentialChangeRequired: "account-credential-change-required"
            case .verification: "verification"
            case .unknown: "other"
            }
        }

        /// Whether the event concerns an account, and so must name one (`subject`).
        var concernsAccount: Bool {
            switch self {
            case .verification, .unknown: false
            default: true
            }
        }
    }

    var kind: Kind
    /// Google's `sub` of the account: the `sub` of a subject of type `iss-sub` (or
    /// `id_token_claims`, which carries the same members) whose `iss` is Google's. Nil for an
    /// event that concerns no account, or a subject that names no Google account.
    var subject: String?
    /// `account-disabled`'s `reason` (`hijacking`, `bulk-account`), when given.
    var reason: String?
    /// `verification`'s `state`: whatever the operator sent to `stream:verify`, for the log.
    var state: String?

    /// The `iss` values a subject may carry for a Google account: the security event tokens'
    /// own, and the two of Google's ID tokens (OIDC Core §15.6.2).
    static let subjectIssuers: Set<String> = [
        ProviderSettings.Google.riscIssuer, ProviderSettings.Google.issuer, ProviderSettings.Google.alternateIssuer,
    ]

    /// Reads one member of `events`; `invalid_request` when it does not conform to its type's
    /// definition (RFC 8935 §2.4.1): not an object, or an event about an account without a
    /// `subject` object.
    init(uri: String, payload: Any) throws(SecurityEventError) {
        kind = Kind(uri: uri)
        guard let object = payload as? [String: Any] else {
            throw SecurityEventError(.invalidRequest, "Each event must be a JSON object.", debug: "\(kind.name) is not an object")
        }
        reason = (object["reason"] as? String).flatMap { Self.bounded($0) }
        state = (object["state"] as? String).map { $0.truncated(toUTF8Bytes: 128).escapingControlCharacters }
        guard kind.concernsAccount else { return }
        guard let subject = object["subject"] as? [String: Any] else {
            throw SecurityEventError(.invalidRequest, "The event has no subject.", debug: "\(kind.name) without a subject object")
        }
        let type = subject["subject_type"] as? String
        if type == "iss-sub" || type == "id_token_claims", let issuer = subject["iss"] as? String, Self.subjectIssuers.contains(issuer) {
            self.subject = (subject["sub"] as? String).flatMap { Self.bounded($0) }
        }
    }

    /// A non-empty value of at most 255 bytes (Google's `sub` is at most 255 ASCII characters).
    private static func bounded(_ text: String) -> String? {
        !text.isEmpty && text.utf8.count <= 255 ? text : nil
    }
}
