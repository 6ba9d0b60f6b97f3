import Foundation
import IssuerCore
import Postgres

/// The claims of an Apple server-to-server notification, its signature already verified. Each
/// input is read twice: as the whole claims object, and as the `events` claim (Apple sends it as
/// a string holding JSON) inside claims that otherwise pass. The type is `package`, for this
/// package's targets only. Fuzzed by Fuzz/AppleNotificationEvent, replayed on its corpus by Tests/FuzzCorpusTests.
public enum AppleNotificationEventHarness {
    private static let issuer = "https://appleid.apple.com"
    private static let audience = "com.example.issuer.services"
    /// 2026-01-01T00:00:00Z; the seeds' `iat` is a little before it.
    private static let now = Date(timeIntervalSince1970: 1_767_225_600)
    private static let leeway: TimeInterval = 60

    /// One input; a failed check traps, as libFuzzer expects.
    public static func run(_ input: UnsafeRawBufferPointer) {
        let payload = Data(input)

        // 1. The input as the whole payload.
        if let event = read(payload) {
            check(event, payload: payload)
            precondition(read(payload) == event, "reading the same payload twice differed")
        }

        // 2. The input as the `events` string of otherwise valid claims: accepted exactly when it is
        // a JSON object with a string `type` and a non-empty string `sub`, and then read as such.
        let text = String(decoding: payload, as: UTF8.self)
        let claims: [String: Any] = ["iss": issuer, "aud": [audience], "iat": Int(now.timeIntervalSince1970) - 5, "events": text]
        guard let wrapped = try? JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys]) else { return }
        let events = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
        let type = events?["type"] as? String
        let subject = events?["sub"] as? String
        let event = read(wrapped)
        if let type, let subject, !subject.isEmpty {
            guard let event else { preconditionFailure("events \(text) with type and sub was refused") }
            precondition(event.kind == AppleNotificationEvent.Kind(type) && event.subject == subject, "events \(text) read as \(event)")
            check(event, payload: wrapped)
        } else {
            precondition(event == nil, "events \(text) without a type and sub was accepted as \(String(describing: event))")
        }
    }

    private static func read(_ payload: Data) -> AppleNotificationEvent? {
        try? AppleNotificationEvent(payload: payload, issuer: issuer, audiences: [audience], now: now, leeway: leeway)
    }

    /// What every accepted event holds, whatever the payload.
    private static func check(_ event: AppleNotificationEvent, payload: Data) {
        precondition(!event.subject.isEmpty, "empty subject")
        // Its time is what an email-forwarding event writes to the database: it must be sendable.
        precondition(event.time.postgresParameter != nil, "time \(event.time) cannot be stored")
        precondition(!event.jti.isEmpty && (event.jti.utf8.count <= 256 || event.jti.hasPrefix("sha256:")), "jti \(event.jti)")
        // The metric label is one of a fixed set, and a known kind is read back from its name.
        let names: Set = ["email-disabled", "email-enabled", "consent-revoked", "account-delete", "other"]
        precondition(names.contains(event.kind.name), "kind name \(event.kind.name)")
        if case .unknown = event.kind {
            precondition(event.kind.name == "other", "unknown kind named \(event.kind.name)")
        } else {
            precondition(AppleNotificationEvent.Kind(event.kind.name) == event.kind, "kind \(event.kind) does not round-trip")
        }
        // Claims without a usable `jti` are keyed by their digest, the same for the same bytes.
        if event.jti.hasPrefix("sha256:") {
            precondition(read(payload)?.jti == event.jti, "digest jti is not stable")
        }
    }
}
