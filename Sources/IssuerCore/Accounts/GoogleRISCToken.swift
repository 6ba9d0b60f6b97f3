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

    /// The latest moment the events can have happened: `iat` counts whole seconds, so the token was
    /// issued somewhere in that second, and its events before it.
    var latestEventTime: Date { issuedAt.addingTimeInterval(1) }

    /// Checks the claims in the order docs/reference.md, "Google's account-protection events" gives: `iss` exactly `issuer`, an
    /// `aud` in `audiences`, `iat` not in the future (with `leeway`) and at most
    /// `SecurityEventClaims.maximumAge` old, `exp` when present not passed, a `jti`, and an
    /// `events` object whose members conform.
    init(payload: Data, issuer: String, audiences: Set<String>, now: Date, leeway: TimeInterval) throws(SecurityEventError) {
        let checked: SecurityEventClaims
        do throws(SecurityEventClaims.Failure) {
            checked = try SecurityEventClaims(
                payload: payload, issuer: issuer, audiences: audiences, now: now, leeway: leeway, numbersInText: false)
        } catch {
            throw Self.refusal(error, issuer: issuer)
        }
        let claims = checked.members
        self.audiences = checked.audiences
        guard let jti = claims["jti"] as? String, !jti.isEmpty, jti.utf8.count <= 256 else {
            throw SecurityEventError(.invalidRequest, "The token has no jti of at most 256 bytes.")
        }
        guard let events = claims["events"] as? [String: Any], !events.isEmpty else {
            throw SecurityEventError(.invalidRequest, "The token's events claim is not a JSON object with an event.")
        }
        self.jti = jti
        issuedAt = Date(timeIntervalSince1970: checked.issuedAt.rounded(.down))
        var read: [GoogleRISCEvent] = []
        for (uri, event) in events.sorted(by: { $0.key < $1.key }) {
            read.append(try GoogleRISCEvent(uri: uri, payload: event))
        }
        self.events = read
    }

    /// A failed check as RFC 8935 §2.4.1 names it.
    private static func refusal(_ failure: SecurityEventClaims.Failure, issuer: String) -> SecurityEventError {
        switch failure {
        case .notAnObject: SecurityEventError(.invalidRequest, "The token's claims are not a JSON object.")
        case .issuer: SecurityEventError(.invalidIssuer, "The token's iss is not \(issuer).", debug: "wrong iss")
        case .audience: SecurityEventError(.invalidAudience, "The token's aud is not a client of this issuer.", debug: "wrong aud")
        case .noIssuedAt: SecurityEventError(.invalidRequest, "The token has no iat.")
        case .issuedInTheFuture: SecurityEventError(.invalidRequest, "The token's iat is in the future.")
        case .tooOld: SecurityEventError(.invalidRequest, "The token's iat is more than 7 days old.")
        case .expired: SecurityEventError(.invalidRequest, "The token has expired.")
        }
    }
}
