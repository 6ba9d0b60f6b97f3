import Foundation
import Logging

/// One connector's hosted-flow capability (docs/design.md, "Connectors"): what `HostedSignIn`
/// needs of an upstream identity provider to sign a browser in there (docs/reference.md, "Hosted
/// sign-in"). `HostedSignIn` keeps what every provider shares — the client's request, the sealed
/// single-use state, the chooser, the sign-in and the redirect to the client — and asks the
/// connector only for what differs: where to send the browser, and what its callback proves.
/// A new provider kind is a new conforming type handed to `HostedSignIn`, not an edit of it.
public protocol HostedFlowConnector: Sendable {
    /// The provider's id: `apple`, or a provider's `id` in `ISSUER_PROVIDERS_FILE`. States are
    /// sealed for it, its callback is `/auth/{id}/callback`, and `provider=` or `idp_hint=`
    /// names it.
    var id: String { get }
    /// Its name on the sign-in page, as a person reads it ("Apple", "Corp").
    var label: String { get }
    /// Whose published button it wears on the sign-in page.
    var brand: ProviderBrand { get }
    /// How its callback arrives: only that method of its callback route reaches it.
    var responseMode: HostedFlowResponseMode { get }

    /// Where to send the browser with `sealedState`, the sealed text of `state` (which is sealed
    /// for this connector and carries the nonce and PKCE verifier to send); nil when the
    /// provider's endpoints cannot be found.
    func authorizationURL(sealedState: String, for state: AuthorizationState) async -> String?

    /// The identity its callback proves: `parameters` are the callback's form or query, `state`
    /// the opened state it carried (sealed for this connector, not yet spent) and `client` the
    /// client that state belongs to. Throws what the flow answers instead.
    func identity(
        from parameters: [String: String], state: AuthorizationState, client: OAuthClient, logger: Logger
    ) async throws(HostedFlowFailure) -> HostedFlowIdentity

    /// Runs once the callback signed `userID` in, before the client is redirected; nothing it
    /// does can fail the sign-in (Apple hands its one-time code to token custody here).
    func signedIn(userID: UUID, parameters: [String: String], logger: Logger) async
}

extension HostedFlowConnector {
    /// Most providers keep nothing of their callback once the user is signed in.
    public func signedIn(userID: UUID, parameters: [String: String], logger: Logger) async {}
}
