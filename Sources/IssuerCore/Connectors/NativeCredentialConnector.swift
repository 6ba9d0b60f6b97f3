import Foundation
import Logging

/// One connector's native-credential capability (docs/design.md, "Connectors"): what
/// `IdentityExchange` needs of an upstream identity provider to turn the credential a native app
/// presents (docs/reference.md, "Native sign-in": the provider's ID token and the raw nonce, and
/// from Apple's app a one-time `authorization_code`) into a verified `ExternalIdentity`.
/// `IdentityExchange` keeps what every provider shares — the request's bounds, the client, the
/// scope, the DPoP binding, the sign-in and the tokens — and asks the connector only for what
/// differs: the audiences and nonce rule its tokens are verified with, and what it keeps once the
/// user is signed in. A new provider kind is a new conforming type, not an edit of the exchange.
public protocol NativeCredentialConnector: Sendable {
    /// Whose tokens it accepts: `/auth/{name}/exchange` names it, and an RFC 8693
    /// `subject_token`'s `iss` chooses it (docs/reference.md, "Token endpoint").
    var provider: IdentityProvider { get }
    /// Whether it has audiences to accept; an exchange with one that has none answers 503.
    var isConfigured: Bool { get }
    /// Whether it takes an access token as well as an ID token (Facebook's classic login).
    var takesAccessTokens: Bool { get }

    /// The identity `credential` proves with `nonce` (the raw nonce the app sent, if any) to
    /// `client`, or to any client when `client` is nil (a signed-in user linking it:
    /// docs/reference.md, "Linked identities").
    func identity(_ credential: NativeCredential, nonce: String?, for client: OAuthClient?) async throws(IdentityTokenError) -> ExternalIdentity

    /// Runs once the credential signed `userID` in as `identity`, before the tokens are answered;
    /// nothing it does can fail the sign-in (Apple hands its one-time code to token custody here).
    func signedIn(userID: UUID, identity: ExternalIdentity, authorizationCode: String?, logger: Logger) async
}

extension NativeCredentialConnector {
    /// Most providers' apps present an ID token only.
    public var takesAccessTokens: Bool { false }

    /// Most providers' apps present nothing to keep once the user is signed in.
    public func signedIn(userID: UUID, identity: ExternalIdentity, authorizationCode: String?, logger: Logger) async {}
}
