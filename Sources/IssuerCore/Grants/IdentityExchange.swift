import Foundation
import Logging

/// Exchanges a provider's identity token for our tokens: the native sign-in (docs/reference.md, "Native sign-in") and
/// the RFC 8693 token-exchange grant (docs/reference.md, "Token endpoint"), which differ only in how a bad token is
/// reported. Steps, in order: client → scope → provider configured → verify the token →
/// sign in (one statement) → mint. What differs by provider (the audiences, the nonce rule, what
/// is kept once signed in) is its connector's (`NativeCredentialConnector`, docs/design.md, "Connectors").
public struct IdentityExchange: Sendable {
    /// How an invalid identity token is reported.
    public enum Style: Sendable {
        /// docs/reference.md, "Native sign-in": `invalid_grant` for a JWT that fails a check, `invalid_request` for no JWT.
        case nativeSignIn
        /// RFC 8693 §2.2.2: `invalid_request` for any invalid `subject_token`.
        case tokenExchange
    }

    /// One exchange request, parsed.
    public struct Request: Sendable {
        /// The provider's credential (`id_token` or `access_token`, or RFC 8693 `subject_token`).
        public var credential: NativeCredential
        /// The raw nonce the app generated, if it sent one.
        public var nonce: String?
        /// `client_id`: must name a registered client; nil (docs/reference.md, "Native sign-in": the native sign-in may
        /// omit it) is the registry's default client.
        public var clientID: String?
        /// The requested scope, space-separated; nil asks for the default (docs/reference.md, "Native sign-in").
        public var scope: String?
        /// The name Apple tells the app only on the first sign-in; stored when present.
        public var givenName: String?
        /// Forwarded like `givenName`.
        public var familyName: String?
        /// Recorded on the session for operators.
        public var userAgent: String?
        /// The client IP (after `ISSUER_TRUSTED_PROXIES`), recorded on the session.
        public var clientIP: String?
        /// docs/reference.md, "Native sign-in" and "Apple token custody": Apple's one-time `authorization_code`, redeemed for an Apple refresh
        /// token that account deletion revokes.
        public var authorizationCode: String?
        /// The thumbprint of the request's DPoP proof, verified before the exchange runs: the
        /// session is bound to that key (docs/reference.md, "DPoP").
        public var dpopThumbprint: String?

        /// Only the credential is required; the client defaults as `clientID` says.
        public init(
            credential: NativeCredential, nonce: String? = nil, clientID: String?, scope: String? = nil, givenName: String? = nil,
            familyName: String? = nil, userAgent: String? = nil, clientIP: String? = nil, authorizationCode: String? = nil,
            dpopThumbprint: String? = nil
        ) {
            self.credential = credential
            self.nonce = nonce
            self.clientID = clientID
            self.scope = scope
            self.givenName = givenName
            self.familyName = familyName
            self.userAgent = userAgent
            self.clientIP = clientIP
            self.authorizationCode = authorizationCode
            self.dpopThumbprint = dpopThumbprint
        }

        /// A request with an ID token, as most providers' apps send.
        public init(
            idToken: String, nonce: String? = nil, clientID: String?, scope: String? = nil, givenName: String? = nil,
            familyName: String? = nil, userAgent: String? = nil, clientIP: String? = nil, authorizationCode: String? = nil,
            dpopThumbprint: String? = nil
        ) {
            self.init(
                credential: .idToken(idToken), nonce: nonce, clientID: clientID, scope: scope, givenName: givenName,
                familyName: familyName, userAgent: userAgent, clientIP: clientIP, authorizationCode: authorizationCode,
                dpopThumbprint: dpopThumbprint)
        }
    }

    /// Whether its connector takes an access token as well as an ID token.
    public var takesAccessTokens: Bool { connector.takesAccessTokens }

    /// Whose tokens this exchange accepts.
    public var provider: IdentityProvider { connector.provider }
    private let connector: any NativeCredentialConnector
    private let clients: ClientRegistry
    private let store: any SignInStoring
    private let responder: TokenResponder
    private let events: any AccountEvents

    /// - Parameter connector: the provider's native credential; one that is not configured answers 503.
    public init(
        connector: any NativeCredentialConnector, clients: ClientRegistry, store: any SignInStoring, responder: TokenResponder,
        events: any AccountEvents = UncountedAccountEvents()
    ) {
        self.events = events
        self.connector = connector
        self.clients = clients
        self.store = store
        self.responder = responder
    }

    /// - Parameter logger: the request's logger, so every line carries its request id.
    public func exchange(_ request: Request, style: Style, logger: Logger) async throws(OAuthError) -> TokenResponse {
        let flow = style == .nativeSignIn ? "native" : "token_exchange"
        do {
            let response = try await signIn(request, style: style, logger: logger)
            events.signIn(provider: provider.name, flow: flow, outcome: "success")
            return response
        } catch {
            events.signIn(provider: provider.name, flow: flow, outcome: error.code.rawValue)
            throw error
        }
    }

    /// What the connector keeps once `identity` is linked to `userID` (docs/reference.md, "Linked
    /// identities"), as after a sign-in: Apple's one-time `authorization_code` goes to token custody,
    /// so that the account's deletion can revoke it at Apple. Nothing it does fails the link.
    public func linked(userID: UUID, identity: ExternalIdentity, authorizationCode: String?, logger: Logger) async {
        await connector.signedIn(userID: userID, identity: identity, authorizationCode: authorizationCode, logger: logger)
    }

    /// A provider's credential verified as the native sign-in verifies it (its audiences, its nonce
    /// rule, for an access token the provider's word), without signing anyone in: for linking it
    /// to a signed-in user (docs/reference.md, "Linked identities"). Errors are the native sign-in's.
    public func verifiedIdentity(_ credential: NativeCredential, nonce: String?) async throws(OAuthError) -> ExternalIdentity {
        switch credential {
        case .idToken(let idToken):
            guard idToken.utf8.count <= IdentityTokenVerifier.maximumTokenLength else {
                throw .invalidRequest("The id_token is too long.")
            }
        case .accessToken:
            guard connector.takesAccessTokens else { throw .invalidRequest("This provider takes an id_token.") }
            _ = try Request(credential: credential, clientID: nil).bounded()
        }
        guard connector.isConfigured else {
            throw .temporarilyUnavailable("Sign in with \(provider.name.capitalized) is not configured on this server.")
        }
        do {
            return try await connector.identity(credential, nonce: nonce, for: nil)
        } catch {
            throw error.oauthError
        }
    }

    private func signIn(_ request: Request, style: Style, logger: Logger) async throws(OAuthError) -> TokenResponse {
        let request = try request.bounded()
        // docs/reference.md, "Native sign-in": a native sign-in that names no client signs in to the registry's default one.
        let client = try request.clientID.map(clients.authenticate) ?? clients.defaultClient
        try client.checkProof(request.dpopThumbprint)
        let scopes = try ScopeRequest.resolve(request.scope, for: client)
        guard connector.isConfigured else {
            throw .temporarilyUnavailable("Sign in with \(provider.name.capitalized) is not configured on this server.")
        }
        let identity: ExternalIdentity
        do {
            identity = try await connector.identity(request.credential, nonce: request.nonce, for: client)
        } catch {
            throw style == .nativeSignIn ? error.oauthError : error.tokenExchangeError
        }
        let signIn: SignIn
        do {
            let signInRequest = SignInRequest(
                identity: identity, givenName: request.givenName ?? identity.givenName,
                familyName: request.familyName ?? identity.familyName,
                clientID: client.clientID, scopes: scopes, nonce: request.nonce,
                userAgent: request.userAgent, clientIP: request.clientIP, dpopThumbprint: request.dpopThumbprint)
            signIn = try await store.signIn(signInRequest)
        } catch is IdentityDisabled {
            // docs/reference.md, "Google's account-protection events": Google disabled the account for hijacking.
            logger.info("sign-in refused", metadata: ["provider": "\(identity.provider)", "reason": "identity disabled by the provider"])
            throw OAuthError.invalidGrant(IdentityDisabled.description, debug: "identity disabled (hijacking)")
        } catch {
            throw OAuthError.storage(error)
        }
        logger.info("signed in", metadata: [
            "provider": "\(identity.provider)", "sub": "\(signIn.user.subject)", "sid": .identifier(signIn.sessionID),
            "client_id": "\(client.clientID)",
        ])
        if signIn.joinedByVerifiedEmail {
            events.identityLinked(provider: identity.provider, by: "verified_email")
            logger.notice("identity linked by verified e-mail", metadata: ["user": "\(signIn.user.subject)", "provider": "\(identity.provider)"])
        }
        await connector.signedIn(
            userID: signIn.user.id, identity: identity, authorizationCode: request.authorizationCode, logger: logger)
        var response = try responder.respond(
            user: signIn.user, clientID: client.clientID, scopes: scopes, sessionID: signIn.sessionID,
            authTime: signIn.authTime, sessionExpiresAt: signIn.sessionExpiresAt, nonce: request.nonce,
            refreshToken: signIn.refreshToken, dpopThumbprint: request.dpopThumbprint)
        if style == .tokenExchange {
            response.issuedTokenType = TokenExchangeURN.accessTokenType
        }
        return response
    }
}
