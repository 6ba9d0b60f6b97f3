import Foundation
import Logging

/// One connector's provider-callbacks capability (docs/design.md, "Connectors"): the provider calls
/// us about one of its users outside any sign-in, at `POST /auth/{provider}/deauthorize` (the person
/// removed the app) and `POST /auth/{provider}/data-deletion` (the person asks for what the app got
/// from the provider to be deleted), with a status page for the latter at
/// `GET /auth/{provider}/data-deletion?code=…` (docs/reference.md, "Facebook's callbacks").
/// The routes exist for every provider whose connector has it; what a callback means is effects
/// of the one `SecurityEventPipeline`.
public protocol ProviderCallbackConnector: Sendable {
    /// The provider's id: its identities, its sessions, its callbacks' paths.
    var provider: String { get }
    /// Its name on the status page, as a person reads it.
    var label: String { get }
    /// The form field that carries a callback's signed payload (Facebook's `signed_request`).
    var payloadField: String { get }

    /// Applies a removal of the app. `invalid_request` for a payload that is missing or fails a
    /// check, nothing changed.
    @discardableResult
    func deauthorize(payload: String?, logger: Logger) async throws(OAuthError) -> SecurityEventPipeline.Outcome

    /// Applies a data deletion request and answers its receipt, the same for the same request.
    /// `invalid_request` for a payload that is missing or fails a check, nothing changed.
    func dataDeletion(payload: String?, logger: Logger) async throws(OAuthError) -> DataDeletionReceipt

    /// When the request with confirmation code `code` was received, or `nil` for a code never issued.
    func status(code: String) async throws(OAuthError) -> Date?
}

/// What a provider is answered for a data deletion request: where the person can read its status,
/// and the code that names it.
public struct DataDeletionReceipt: Sendable, Equatable {
    /// The status page's address, the code in its query.
    public var url: String
    public var confirmationCode: String

    public init(url: String, confirmationCode: String) {
        self.url = url
        self.confirmationCode = confirmationCode
    }
}
