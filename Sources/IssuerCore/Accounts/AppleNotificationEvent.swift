import Foundation
import JOSE

/// One server-to-server notification from Apple (docs/reference.md, "Apple notifications"), its signature already verified:
/// the JWT's `iss`, `aud`, `iat`, `exp`, `jti`, and its `events` claim, which Apple sends as a
/// JSON object or as a string holding one.
struct AppleNotificationEvent: Sendable, Equatable {
    /// What happened; the table (docs/reference.md, "Apple notifications").
    enum Kind: Sendable, Equatable {
        case emailDisabled
        case emailEnabled
        case consentRevoked
        case accountDeleted
        case unknown(String)

        init(_ type: String) {
            switch type {
            case "email-disabled": self = .emailDisabled
            case "email-enabled": self = .emailEnabled
            case "consent-revoked": self = .consentRevoked
            case "account-delete", "account-deleted": self = .accountDeleted
            default: self = .unknown(type)
            }
        }

        /// The name metrics and logs use; an unknown type is `other`, so a sender cannot grow the
        /// metric's label set.
        var name: String {
            switch self {
            case .emailDisabled: "email-disabled"
            case .emailEnabled: "email-enabled"
            case .consentRevoked: "consent-revoked"
            case .accountDeleted: "account-delete"
            case .unknown: "other"
            }
        }
    }

    /// Why a verified payload is still refused: the claims are not those of a notification for us.
    struct Invalid: Error, CustomStringConvertible {
        let description: String
    }

    var kind: Kind
    /// Apple's user id: the `sub` of its identity tokens.
    var subject: String
    /// When it happened, as Apple says (`event_time`, milliseconds), never later than `iat`; `iat` when absent.
    var time: Date
    /// Idempotency key: the JWT's `jti`, or a digest of the payload when Apple sends none.
    var jti: String

    /// How old a payload may be. `jti`s are remembered far longer than this (see
    /// `ReceivedEventStore.retention`), so a captured payload is refused by its age before its
    /// `jti` could be forgotten and it could apply twice.
    static let maximumAge: TimeInterval = 7 * 24 * 3600

    /// Checks the claims (docs/reference.md, "Apple notifications": `iss`, `aud` one of `audiences`, `iat` not in the future and
    /// at most `maximumAge` old, `exp` when present not passed, with `leeway`) and reads the event.
    init(payload: Data, issuer: String, audiences: Set<String>, now: Date, leeway: TimeInterval) throws {
        guard let claims = (try? JSONSerialization.jsonObject(with: payload)) as? [String: Any] else {
            throw Invalid(description: "claims are not a JSON object")
        }
        guard claims["iss"] as? String == issuer else { throw Invalid(description: "wrong iss") }
        let audience = (claims["aud"] as? String).map { [$0] } ?? (claims["aud"] as? [String]) ?? []
        guard audience.contains(where: audiences.contains) else { throw Invalid(description: "wrong aud") }
        guard let iat = Self.number(claims["iat"]) else { throw Invalid(description: "no iat") }
        guard iat - leeway <= now.timeIntervalSince1970 else { throw Invalid(description: "iat in the future") }
        guard now.timeIntervalSince1970 - iat <= Self.maximumAge else { throw Invalid(description: "iat older than 7 days") }
        if claims["exp"] != nil {
            guard let exp = Self.number(claims["exp"]), exp + leeway > now.timeIntervalSince1970 else {
                throw Invalid(description: "expired")
            }
        }
        let events: [String: Any]?
        if let text = claims["events"] as? String {
            events = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
        } else {
            events = claims["events"] as? [String: Any]
        }
        guard let events, let type = events["type"] as? String, let subject = events["sub"] as? String, !subject.isEmpty else {
            throw Invalid(description: "events is not an object with type and sub")
        }
        kind = Kind(type)
        self.subject = subject
        // An event cannot have happened after Apple signed it: a later `event_time` is read as `iat`,
        // so a payload cannot reach sessions that begin after it was issued.
        // And none is older than `maximumAge` before it: Apple sends events as they happen.
        // `iat` counts whole seconds, so the event may lie anywhere in its second.
        let issued = Date(timeIntervalSince1970: iat)
        let latest = issued.addingTimeInterval(1)
        let earliest = issued.addingTimeInterval(-Self.maximumAge)
        time = Self.number(events["event_time"]).map { max(min(Date(timeIntervalSince1970: $0 / 1000), latest), earliest) } ?? issued
        if let jti = claims["jti"] as? String, !jti.isEmpty, jti.utf8.count <= 256 {
            self.jti = jti
        } else {
            self.jti = "sha256:" + Base64URL.encode(JOSEDigest.sha256(payload))
        }
    }

    /// A JSON number, or a string holding one (Apple has sent both); finite only, so `"nan"` or
    /// `"inf"` is no time at all.
    private static func number(_ value: Any?) -> Double? {
        let number: Double?
        if let integer = value as? Int {
            number = Double(integer)
        } else if let double = value as? Double {
            number = double
        } else if let boxed = value as? NSNumber {
            number = boxed.doubleValue
        } else if let text = value as? String {
            number = Double(text)
        } else {
            number = nil
        }
        return number.flatMap { $0.isFinite ? $0 : nil }
    }
}
