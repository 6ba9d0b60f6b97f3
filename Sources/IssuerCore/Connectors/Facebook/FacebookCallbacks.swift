import Crypto
import Foundation
import Logging

/// Facebook's two callbacks (docs/reference.md, "Facebook's callbacks"), decoders over the one
/// `SecurityEventPipeline` (docs/design.md, "Security events"): the `signed_request` is verified
/// here, and what it means is a list of effects the pipeline applies once per request.
/// - Deauthorize (the user removed the app): the sessions begun through this provider before
///   `issued_at` are revoked; the identity stays.
/// - Data deletion (the user asked for the data the app got from Facebook): the sessions begun
///   through it are revoked and the identity removed, with its user deleted as account deletion
///   deletes it when it was their last; the answer is a confirmation code, the same for the same
///   request, and a status page address.
/// Every call is logged with our user id, never Facebook's, and counted.
public struct FacebookCallbacks: ProviderCallbackConnector {
    public let provider: String
    public var label: String { "Facebook" }
    public var payloadField: String { "signed_request" }
    private let appSecret: Secret<String>
    private let pipeline: SecurityEventPipeline
    private let requests: any DataDeletionRequestStoring
    /// Keys the confirmation codes: unguessable without the server secret, yet the same for the
    /// same request.
    private let codeKey: SymmetricKey
    /// `ISSUER_URL` + `/auth/{id}/data-deletion`.
    private let statusURL: String
    private let clock: any WallClock
    private let events: any AccountEvents

    public init(
        provider: String, appSecret: Secret<String>, pipeline: SecurityEventPipeline, requests: any DataDeletionRequestStoring,
        serverSecret: ServerSecret, statusURL: String, clock: any WallClock, events: any AccountEvents
    ) {
        self.provider = provider
        self.appSecret = appSecret
        self.pipeline = pipeline
        self.requests = requests
        self.codeKey = serverSecret.key(for: "data-deletion-confirmation")
        self.statusURL = statusURL
        self.clock = clock
        self.events = events
    }

    /// Applies a deauthorize callback. `invalid_request` for a `signed_request` that is missing
    /// or fails a check, nothing changed.
    @discardableResult
    public func deauthorize(payload signedRequest: String?, logger: Logger) async throws(OAuthError) -> SecurityEventPipeline.Outcome {
        let request = try verified(signedRequest, callback: "deauthorize", logger: logger)
        // `issued_at` is a whole second: a sign-in within that second may have come before the
        // removal, so the whole second counts (a sign-in after it is a new authorization, and one
        // revoked needlessly only signs in again).
        let endOfSecond = request.issuedAt.addingTimeInterval(0.999)
        let event = SecurityEvent(
            name: "deauthorize", subject: request.userID,
            effects: [.providerSessionsRevoked(begunBy: endOfSecond, reason: "\(provider) deauthorized")])
        return try await apply(event, request: request, callback: "deauthorize", logger: logger)
    }

    /// Applies a data deletion callback and answers its confirmation: the same code for the same
    /// request, and a code for a user nobody has (there was nothing to delete).
    public func dataDeletion(payload signedRequest: String?, logger: Logger) async throws(OAuthError) -> DataDeletionReceipt {
        let request = try verified(signedRequest, callback: "data_deletion", logger: logger)
        let now = clock.now
        let event = SecurityEvent(name: "data_deletion", subject: request.userID, effects: [
            .providerSessionsRevoked(begunBy: now, reason: "\(provider) data deletion"),
            .profileFromIdentityCleared,
            .identityRemoved(orphanDeletedFor: .providerDataDeletion),
        ])
        try await apply(event, request: request, callback: "data_deletion", logger: logger)
        let code = confirmationCode(for: request)
        // Recorded after the deletion: a failure here answers 503 and Facebook sends the request
        // again, which the pipeline then finds applied.
        do {
            _ = try await requests.record(code: code, provider: provider, receivedAt: now)
        } catch {
            throw .storage(error)
        }
        return DataDeletionReceipt(url: statusURL + "?code=" + code, confirmationCode: code)
    }

    /// When the data deletion request answered with `code` was received; nil for a code never
    /// answered (or not a code at all).
    public func status(code: String) async throws(OAuthError) -> Date? {
        guard (16...32).contains(code.utf8.count), code.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
            return nil
        }
        do {
            return try await requests.receivedAt(code: code)
        } catch {
            throw .storage(error)
        }
    }

    /// 32 lowercase hex digits (128 bits) of an HMAC of the request's MAC under the server secret.
    func confirmationCode(for request: FacebookSignedRequest) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data(provider.utf8) + [0] + request.signature, using: codeKey)
        return mac.prefix(16).map { String(format: "%02x", $0) }.joined()
    }

    private func verified(_ signedRequest: String?, callback: String, logger: Logger) throws(OAuthError) -> FacebookSignedRequest {
        do throws(FacebookSignedRequest.Refusal) {
            guard let signedRequest, !signedRequest.isEmpty else { throw FacebookSignedRequest.Refusal(description: "no signed_request") }
            return try FacebookSignedRequest(signedRequest, appSecret: appSecret, now: clock.now)
        } catch {
            events.providerCallback(provider: provider, callback: callback, outcome: "invalid")
            logger.warning("provider callback refused", metadata: ["provider": "\(provider)", "callback": "\(callback)", "error": "\(error)"])
            throw .invalidRequest("The signed_request failed verification.", debug: error.description)
        }
    }

    @discardableResult
    private func apply(
        _ event: SecurityEvent, request: FacebookSignedRequest, callback: String, logger: Logger
    ) async throws(OAuthError) -> SecurityEventPipeline.Outcome {
        // The delivery is its MAC, decoded: padding or any other spelling of the same request is
        // the same delivery.
        let id = request.signature.map { String(format: "%02x", $0) }.joined()
        // A sender per callback: Facebook may send both for one person in one second, with payloads
        // alike to the byte, and each must be applied.
        let results = try await pipeline.apply(SecurityEventPipeline.Delivery(
            sender: "\(provider) \(callback)", id: id, providers: [provider], events: [event]))
        let outcome = SecurityEventPipeline.Outcome(results)
        let result = results?.first
        let label = switch outcome {
        case .applied: "applied"
        case .nothingToDo: "nothing_to_do"
        case .duplicate: "duplicate"
        }
        events.providerCallback(provider: provider, callback: callback, outcome: label)
        // Our user id only: Facebook's id of the person is what this log must not become an index of.
        logger.notice("provider callback", metadata: [
            "provider": "\(provider)", "callback": "\(callback)", "outcome": "\(label)",
            "user": "\(result?.users.first?.lowercaseText ?? "-")",
            "deleted": "\(result?.deleted != nil)",
        ])
        return outcome
    }
}
