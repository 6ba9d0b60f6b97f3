import Foundation
import JOSE

/// One server-to-server notification from Apple (docs/reference.md, "Apple notifications"), its signature already verified:
/// the JWT's `iss`, `aud`, `iat`, `exp`, `jti`, and its `events` claim, which Apple sends as a
/// JSON object or as a string holding one.
package struct AppleNotificationEvent: Sendable, Equatable {
    /// What happened; the table (docs/reference.md, "Apple notifications").
    package enum Kind: Sendable, Equatable {
        case emailDisabled
        case emailEnabled
        case consentRevoked
        case accountDeleted
        case unknown(String)

        package init(_ type: String) {
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
        package var name: String {
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

    package var kind: Kind
    /// Apple's user id: the `sub` of its identity tokens.
    package var subject: String
    /// When it happened, as Apple says (`event_time`, milliseconds), never later than `iat`; `iat` when absent.
    package var time: Date
    /// Idempotency key: the JWT's `jti`, or a digest of the payload when Apple sends none.
    package var jti: String

    /// Checks the claims (docs/reference.md, "Apple notifications": `iss`, `aud` one of `audiences`, `iat` not in the future and
    /// at most `SecurityEventClaims.maximumAge` old, `exp` when present not passed, with `leeway`) and reads the event.
    package init(payload: Data, issuer: String, audiences: Set<String>, now: Date, leeway: TimeInterval) throws {
        let claims: [String: Any]
        let iat: Double
        do throws(SecurityEventClaims.Failure) {
            let checked = try SecurityEventClaims(
                payload: payload, issuer: issuer, audiences: audiences, now: now, leeway: leeway, numbersInText: true)
            claims = checked.members
            iat = checked.issuedAt
        } catch {
            throw Invalid(description: Self.reason(error))
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
        // And none is older than `SecurityEventClaims.maximumAge` before it: Apple sends events as they happen.
        // `iat` counts whole seconds, so the event may lie anywhere in its second.
        let issued = Date(timeIntervalSince1970: iat)
        let latest = issued.addingTimeInterval(1)
        let earliest = issued.addingTimeInterval(-SecurityEventClaims.maximumAge)
        time = SecurityEventClaims.number(events["event_time"], inText: true)
            .map { max(min(Date(timeIntervalSince1970: $0 / 1000), latest), earliest) } ?? issued
        if let jti = claims["jti"] as? String, !jti.isEmpty, jti.utf8.count <= 256 {
            self.jti = jti
        } else {
            self.jti = "sha256:" + Base64URL.encode(JOSEDigest.sha256(payload))
        }
    }

    /// What the log says of a failed check.
    private static func reason(_ failure: SecurityEventClaims.Failure) -> String {
        switch failure {
        case .notAnObject: "claims are not a JSON object"
        case .issuer: "wrong iss"
        case .audience: "wrong aud"
        case .noIssuedAt: "no iat"
        case .issuedInTheFuture: "iat in the future"
        case .tooOld: "iat older than 7 days"
        case .expired: "expired"
        }
    }
}
