import Crypto
import Foundation
import Logging

/// The hosted Authorization Code flow (docs/reference.md, "Hosted sign-in") through any
/// hosted-flow connector (Sign in with Apple on the web, the providers of
/// `ISSUER_PROVIDERS_FILE`), without HTTP: the authorization endpoint's decision (send the browser
/// to a provider, show the chooser or a page, or redirect an error to the client) and the
/// callbacks' (open and spend the state, let its connector verify the provider's answer, sign in,
/// and redirect the client with a one-time code). Every provider ends in the same sign-in step,
/// and nothing here knows which provider it serves beyond the connector the state names
/// (docs/design.md, "Connectors").
public struct HostedSignIn: Sendable {
    /// What the endpoint answers the browser.
    public enum Outcome: Sendable, Equatable {
        /// `302` to this URL: a provider, or the client's redirect URI.
        case redirect(String)
        /// A page with this status and message: the redirect URI is not (or no longer) known,
        /// so nothing may be redirected (RFC 6749 §4.1.2.1).
        case page(status: Int, message: PageMessage)
        /// The sign-in page of `client`: one button per provider, each carrying a state sealed
        /// for it (all of them one single-use key).
        case choose([Choice], client: OAuthClient)
    }

    /// One button of the sign-in page.
    public struct Choice: Sendable, Equatable {
        /// The provider's name as a person reads it ("Apple", "Corp").
        public var label: String
        public var url: String
        /// Whose published button it wears.
        public var brand: ProviderBrand
    }

    /// The providers that serve the hosted flow, in the chooser's order.
    private let connectors: [any HostedFlowConnector]
    /// `ISSUER_URL`, sent back as `iss` on every redirect to the client (RFC 9207 §2).
    private let issuer: String
    private let clients: ClientRegistry
    private let sealer: AuthorizationStateSealer
    private let store: any HostedSignInStoring
    private let clock: any WallClock
    private let events: any AccountEvents

    /// - Parameters:
    ///   - connectors: the providers that serve the hosted flow, in the chooser's order (Apple
    ///     first, then the providers file's); with none, every step answers 503.
    ///   - issuer: `ISSUER_URL`, as the tokens' `iss`.
    public init(
        connectors: [any HostedFlowConnector], issuer: String, clients: ClientRegistry, sealer: AuthorizationStateSealer,
        store: any HostedSignInStoring, clock: any WallClock, events: any AccountEvents = UncountedAccountEvents()
    ) {
        self.connectors = connectors
        self.issuer = issuer
        self.clients = clients
        self.sealer = sealer
        self.store = store
        self.clock = clock
        self.events = events
    }

    static let notConfigured = Outcome.page(status: 503, message: PageMessage(.notConfigured))

    /// The connector with this id, if the hosted flow has one.
    private func connector(_ id: String) -> (any HostedFlowConnector)? {
        connectors.first { $0.id == id }
    }

    /// `GET /oauth2/authorize`: validate, seal the request into a state, then send the browser to
    /// the provider the request names (`provider`, or `idp_hint`), to the only one there is, or to
    /// a chooser page whose links each carry that state sealed for their own provider.
    public func authorize(_ parameters: [String: String], repeated: Set<String>) async -> Outcome {
        guard let first = connectors.first else { return Self.notConfigured }
        switch AuthorizationRequest.validate(parameters, repeated: repeated, clients: clients) {
        case .untrusted(let message):
            return .page(status: 400, message: message)
        case .redirect(let redirectURI, let error, let description, let state):
            return toClient(redirectURI, [("error", error.rawValue), ("error_description", description), ("state", state)])
        case .valid(let request):
            let requested = parameters["provider"] ?? parameters["idp_hint"]
            let named = requested.flatMap(connector)
            if requested != nil, named == nil {
                return toClient(request.redirectURI, [
                    ("error", OAuthError.Code.invalidRequest.rawValue),
                    ("error_description", "The provider is not one this server offers."), ("state", request.state),
                ])
            }
            let state = AuthorizationState(request: request, provider: named?.id ?? first.id, now: clock.now)
            if let chosen = named ?? (connectors.count == 1 ? first : nil) {
                guard let url = await authorizationURL(state, at: chosen) else {
                    return toClient(request.redirectURI, [
                        ("error", OAuthError.Code.temporarilyUnavailable.rawValue),
                        ("error_description", "The provider cannot be reached; try again shortly."), ("state", request.state),
                    ])
                }
                return .redirect(url)
            }
            var choices: [Choice] = []
            for connector in connectors {
                guard let url = await authorizationURL(state, at: connector) else { continue }
                choices.append(Choice(label: connector.label, url: url, brand: connector.brand))
            }
            guard let client = clients.client(id: request.clientID) else { return .page(status: 400, message: PageMessage(.clientUnknown)) }
            return .choose(choices, client: client)
        }
    }

    /// Where to send the browser for `connector`, with `state` sealed for it; nil when that
    /// provider's endpoints cannot be found.
    private func authorizationURL(_ state: AuthorizationState, at connector: any HostedFlowConnector) async -> String? {
        let sent = state.sent(to: connector.id)
        return await connector.authorizationURL(sealedState: sealer.seal(sent), for: sent)
    }

    /// A provider's callback (`POST /auth/apple/callback`'s form, `GET /auth/{provider}/callback`'s
    /// query): the connector with this id and response mode, the state opened and bound to it and
    /// not spent, then its connector's verification, then the sign-in.
    public func callback(
        _ connectorID: String, responseMode: HostedFlowResponseMode, parameters: [String: String],
        userAgent: String?, clientIP: String?, logger: Logger
    ) async -> Outcome {
        guard let connector = connectors.first(where: { $0.id == connectorID && $0.responseMode == responseMode }) else {
            switch responseMode {
            case .formPost: return Self.notConfigured
            case .query: return .page(status: 404, message: PageMessage(.providerUnknown))
            }
        }
        let opened: (state: AuthorizationState, client: OAuthClient)
        switch open(parameters["state"], at: connector.id, logger: logger) {
        case .success(let value): opened = value
        case .failure(let refusal): return refusal.outcome
        }
        let (state, client) = opened
        if await alreadySpent(state, logger: logger) { return Self.alreadyUsed }
        let verified: HostedFlowIdentity
        do {
            verified = try await connector.identity(from: parameters, state: state, client: client, logger: logger)
        } catch {
            switch error {
            case .wrongIssuer:
                return Self.wrongIssuer
            case .refused(let code, let description, let reason):
                return failure(state.request, provider: connector.id, logger: logger)(code, description, reason)
            }
        }
        return await complete(
            verified, state: state, client: client, userAgent: userAgent, clientIP: clientIP, logger: logger
        ) { userID in
            await connector.signedIn(userID: userID, parameters: parameters, logger: logger)
        }
    }

    /// Opens a callback's sealed state and finds its client, or the page that says why not. The
    /// state must be sealed for `provider`, the callback it arrived at: a state sent to another
    /// provider is refused before anything is sent anywhere (RFC 9700 §4.4.2), and is not spent.
    private func open(
        _ sealed: String?, at provider: String, logger: Logger
    ) -> Result<(state: AuthorizationState, client: OAuthClient), OutcomeError> {
        let state: AuthorizationState
        do {
            state = try sealer.open(sealed ?? "")
        } catch {
            logger.info("hosted sign-in refused", metadata: ["reason": "state \(error)"])
            return .failure(OutcomeError(Self.invalidState))
        }
        guard state.provider == provider else {
            logger.warning("hosted sign-in refused", metadata: [
                "reason": "state sealed for another provider", "provider": "\(provider)", "sealed_for": "\(state.provider)",
                "client_id": "\(state.request.clientID)",
            ])
            return .failure(OutcomeError(Self.invalidState))
        }
        guard let client = clients.client(id: state.request.clientID), client.redirectURIs.contains(state.request.redirectURI) else {
            return .failure(OutcomeError(.page(status: 400, message: PageMessage(.clientGone))))
        }
        return .success((state, client))
    }

    static let invalidState = Outcome.page(status: 400, message: PageMessage(.stateInvalid))

    /// RFC 9207 §2.4: an answer from another authorization server (a mix-up) is a plain 400 page,
    /// before anything is sent to a token endpoint (`HostedFlowFailure.wrongIssuer`).
    static let wrongIssuer = Outcome.page(status: 400, message: PageMessage(.wrongIssuer))

    /// docs/reference.md, "Hosted sign-in": a second callback with the same state is a plain 400
    /// page, whatever it carries (an `error` included), and no provider code is spent on it.
    static let alreadyUsed = Outcome.page(status: 400, message: PageMessage(.stateUsed))

    /// Whether the state signed someone in already; asked first, so a replay is never redirected
    /// to the client. The sign-in statement still decides atomically (`StateAlreadySpent`).
    private func alreadySpent(_ state: AuthorizationState, logger: Logger) async -> Bool {
        guard (try? await store.isSpent(stateHash: Self.stateHash(state))) == true else { return false }
        logger.info("hosted sign-in refused", metadata: ["reason": "state already used", "client_id": "\(state.request.clientID)"])
        return true
    }

    /// What marks a state spent: the SHA-256 of its nonce, unique to it.
    private static func stateHash(_ state: AuthorizationState) -> [UInt8] {
        Array(SHA256.hash(data: Data(state.providerNonce.utf8)))
    }

    /// An outcome that ends a callback early.
    private struct OutcomeError: Error {
        let outcome: Outcome
        init(_ outcome: Outcome) { self.outcome = outcome }
    }

    /// How a callback reports a failure once the client's redirect URI is trusted: an RFC 6749
    /// §4.1.2.1 error to the client, and a log line with the reason.
    private func failure(
        _ request: AuthorizationRequest, provider: String, logger: Logger
    ) -> (_ code: OAuthError.Code, _ description: String, _ reason: String) -> Outcome {
        { code, description, reason in
            events.signIn(provider: provider, flow: "hosted", outcome: code.rawValue)
            logger.info("hosted sign-in refused", metadata: [
                "reason": "\(reason)", "client_id": "\(request.clientID)", "provider": "\(provider)",
            ])
            return toClient(request.redirectURI, [("error", code.rawValue), ("error_description", description), ("state", request.state)])
        }
    }

    /// What every provider's callback ends in (docs/reference.md, "Hosted sign-in"): the sign-in,
    /// the state spent and a one-time code stored in one statement, then the client's redirect.
    /// `afterSignIn` runs once the user exists (the connector's `signedIn`).
    private func complete(
        _ verified: HostedFlowIdentity, state: AuthorizationState, client: OAuthClient,
        userAgent: String?, clientIP: String?, logger: Logger, afterSignIn: (UUID) async -> Void
    ) async -> Outcome {
        let request = state.request
        let identity = verified.identity
        let outcome: (signIn: SignIn, code: AuthorizationCode)
        do {
            let signIn = SignInRequest(
                identity: identity, givenName: verified.givenName, familyName: verified.familyName, clientID: client.clientID,
                scopes: request.scopes, nonce: request.nonce,
                userAgent: UserAgent.bounded(userAgent),
                clientIP: clientIP)
            outcome = try await store.signIn(
                signIn,
                authorization: request, codeLifetime: AuthorizationCode.lifetime,
                stateHash: Self.stateHash(state),
                stateExpiresAt: Date(timeIntervalSince1970: TimeInterval(state.expiresAt)))
        } catch is StateAlreadySpent {
            // A replayed callback: the state signed someone in already (docs/reference.md, "Hosted sign-in").
            logger.info("hosted sign-in refused", metadata: ["reason": "state already used", "client_id": "\(request.clientID)"])
            return Self.alreadyUsed
        } catch is IdentityDisabled {
            // docs/reference.md, "Google's account-protection events": Google disabled the account for hijacking.
            return failure(request, provider: identity.provider, logger: logger)(
                .accessDenied, IdentityDisabled.description, "identity disabled (hijacking)")
        } catch {
            let mapped = OAuthError.storage(error)
            return failure(request, provider: identity.provider, logger: logger)(
                mapped.code == .temporarilyUnavailable ? .temporarilyUnavailable : .serverError,
                mapped.code == .temporarilyUnavailable ? "The service is briefly unavailable; try again." : "The sign-in could not be completed.",
                "storage: \(error)")
        }
        logger.info("signed in", metadata: [
            "provider": "\(identity.provider)", "sub": "\(outcome.signIn.user.subject)", "sid": .identifier(outcome.signIn.sessionID),
            "client_id": "\(client.clientID)", "flow": "hosted",
        ])
        events.signIn(provider: identity.provider, flow: "hosted", outcome: "success")
        if outcome.signIn.joinedByVerifiedEmail {
            events.identityLinked(provider: identity.provider, by: "verified_email")
            logger.notice("identity linked by verified e-mail", metadata: [
                "user": "\(outcome.signIn.user.subject)", "provider": "\(identity.provider)",
            ])
        }
        await afterSignIn(outcome.signIn.user.id)
        return toClient(request.redirectURI, [("code", outcome.code.value), ("state", request.state)])
    }

    /// A redirect back to the client: its parameters and `iss` (RFC 9207 §2), so a client that
    /// talks to several issuers can tell which one answered (a mix-up defence).
    private func toClient(_ redirectURI: String, _ parameters: [(String, String?)]) -> Outcome {
        .redirect(RedirectURI.adding(parameters + [("iss", issuer)], to: redirectURI))
    }
}
