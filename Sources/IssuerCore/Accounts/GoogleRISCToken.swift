import Foundation

/// A security event token from Google (RFC 8417; docs/reference.md, "Google's account-protection events"), its signature already
/// verified: the JWT's `iss`, `aud`, `iat`, `jti` and `events`, checked.
struct GoogleRISCToken: Sendable, Equatable {
    /// Idempotency key (RFC 8417 §2.2: unique to its issuer).
    var jti: String
    /// When Google issued it, in whole seconds.
    var issuedAt: Date
    /// Its `aud` values that are ours: they say which Google provider it concerns.
    var audiences: Set<String>
    /// Its events, in no particular order (a JSON object's members have none).
    var events: [GoogleRISCEvent]

    /// How old a token may be. `jti`s are remembered far longer (`ReceivedEventStore.retention`),
    /// so a captured token is refused by its age before its `jti` could be forgotten.
    static let maximumAge: TimeInterval = 7 * 24 * 3600

    /// The latest moment the events can have happened: `iat` counts whole seconds, so the token was
    /// issued somewhere in that second, and its events before it.
    var latestEventTime: Date { issuedAt.addingTimeInterval(1) }

    /// Checks the claims in the order docs/reference.md, "Google's account-protection events" gives: `iss` exactly `issuer`, an
    /// `aud` in `audiences`, `iat` not in the future (with `leeway`) and at most `maximumAge` old,
    /// `exp` when present not passed, a `jti`, and an `events` object whose members conform.
    init(payload: Data, issuer: String, audiences: Set<String>, now: Date, leeway: TimeInterval) throws(SecurityEventError) {
        guard let claims = (try? JSONSerialization.jsonObject(with: payload)) as? [String: Any] else {
            throw SecurityEventError(.invalidRequest, "The token's claims are not a JSON object.")
        }
        guard claims["iss"] as? String == issuer else {
            throw SecurityEventError(.invalidIssuer, "The token's iss is not \(issuer).", debug: "wrong iss")
        }
        let audience = (claims["aud"] as? String).map { [$0] } ?? (claims["aud"] as? [String]) ?? []
        self.audiences = Set(audience).intersection(audiences)
        guard !self.audiences.isEmpty else {
            throw SecurityEventError(.invalidAudience, "The token's aud is not a client of this issuer.", debug: "wrong aud")
        }
        guard let iat = Self.number(claims["iat"]) else { throw SecurityEventError(.invalidRequest, "The token has no iat.") }
        guard iat - leeway <= now.timeIntervalSince1970 else {
            throw SecurityEventError(.invalidRequest, "The token's iat is in the future.")
        }
        guard now.timeIntervalSince1970 - iat <= Self.maximumAge else {
            throw SecurityEventError(.invalidRequest, "The token's iat is more than 7 days old.")
        }
        if claims["exp"] != nil {
            guard let exp = Self.number(claims["exp"]), exp + leeway > now.timeIntervalSince1970 else {
                throw SecurityEventError(.invalidRequest, "The token has expired.")
            }
        }
        guard let jti = claims["jti"] as? String, !jti.isEmpty, jti.utf8.count <= 256 else {
            throw SecurityEventError(.invalidRequest, "The token has no jti of at most 256 bytes.")
        }
        guard let events = claims["events"] as? [String: Any], !events.isEmpty else {
            throw SecurityEventError(.invalidRequest, "The token's events claim is not a JSON object with an event.")
        }
        self.jti = jti
        issuedAt = Date(timeIntervalSince1970: iat.rounded(.down))
        var read: [GoogleRISCEvent] = []
        for (uri, event) in events.sorted(by: { $0.key < $1.key }) {
            read.append(try GoogleRISCEvent(uri: uri, payload: event))
        }
        self.events = read
    }

    /// A finite JSON number (RFC 7519 §2 NumericDate).
    private static func number(_ value: Any?) -> Double? {
        let number = (value as? Int).map(Double.init) ?? (value as? Double) ?? (value as? NSNumber)?.doubleValue
        return number.flatMap { $0.isFinite ? $0 : nil }
    }
}
