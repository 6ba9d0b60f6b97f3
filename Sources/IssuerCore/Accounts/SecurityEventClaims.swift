import Foundation

/// The registered claims of a provider's signed security event, checked alike whoever sent it
/// (RFC 7519 §4.1; RFC 8417 §2.2): `iss` exactly the sender's, an `aud` of ours, `iat` not in the
/// future (with a leeway) and at most `maximumAge` old, `exp` when present not passed. Each decoder
/// names a failure in its own answer (docs/reference.md, "Apple notifications" and "Google's
/// account-protection events") and reads its own members from `members`.
struct SecurityEventClaims {
    /// Which check failed, in the order they run.
    enum Failure: Error, Sendable, Equatable {
        case notAnObject
        case issuer
        case audience
        case noIssuedAt
        case issuedInTheFuture
        case tooOld
        case expired
    }

    /// How old an event may be. Ids are remembered far longer than this (see
    /// `ReceivedEventStore.retention`), so a captured event is refused by its age before its id
    /// could be forgotten and it could apply twice.
    static let maximumAge: TimeInterval = 7 * 24 * 3600

    /// Every claim, for the members only its sender has.
    let members: [String: Any]
    /// Its `aud` values that are ours.
    let audiences: Set<String>
    /// Its `iat`, in seconds since 1970.
    let issuedAt: Double

    /// Checks the claims of `payload`. `numbersInText`: whether a NumericDate may come as a string
    /// holding a number (Apple has sent both).
    init(payload: Data, issuer: String, audiences: Set<String>, now: Date, leeway: TimeInterval, numbersInText: Bool) throws(Failure) {
        guard let members = (try? JSONSerialization.jsonObject(with: payload)) as? [String: Any] else { throw .notAnObject }
        guard members["iss"] as? String == issuer else { throw .issuer }
        let audience = (members["aud"] as? String).map { [$0] } ?? (members["aud"] as? [String]) ?? []
        let ours = Set(audience).intersection(audiences)
        guard !ours.isEmpty else { throw .audience }
        guard let iat = Self.number(members["iat"], inText: numbersInText) else { throw .noIssuedAt }
        guard iat - leeway <= now.timeIntervalSince1970 else { throw .issuedInTheFuture }
        guard now.timeIntervalSince1970 - iat <= Self.maximumAge else { throw .tooOld }
        if members["exp"] != nil {
            guard let exp = Self.number(members["exp"], inText: numbersInText), exp + leeway > now.timeIntervalSince1970 else {
                throw .expired
            }
        }
        self.members = members
        self.audiences = ours
        issuedAt = iat
    }

    /// A finite JSON number (RFC 7519 §2 NumericDate), or with `inText` a string holding one; never
    /// `"nan"` or `"inf"`, which are no time at all.
    static func number(_ value: Any?, inText: Bool) -> Double? {
        let number: Double?
        if let integer = value as? Int {
            number = Double(integer)
        } else if let double = value as? Double {
            number = double
        } else if let boxed = value as? NSNumber {
            number = boxed.doubleValue
        } else if inText, let text = value as? String {
            number = Double(text)
        } else {
            number = nil
        }
        return number.flatMap { $0.isFinite ? $0 : nil }
    }
}
