import Crypto
import Foundation
import JOSE
import Logging

/// The hosted Authorization Code flow (docs/reference.md, "Hosted sign-in") through Sign in with
/// Apple on the web or any provider of `ISSUER_PROVIDERS_FILE`, without HTTP: the authorization
/// endpoint's decision (send the browser to a provider, show the chooser or a page, or redirect an
/// error to the client) and the callbacks' (verify the provider's answer, sign in, and redirect
/// the client with a one-time code). Every provider ends in the same sign-in step.
public struct HostedSignIn: Sendable {
    /// What the endpoint answers the browser.
    public enum Outcome: Sendable, Equatable {
        /// `302` to this URL: Apple, or the client's redirect URI.
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

    /// The Apple side of the flow (docs/reference.md, "Configuration").
    public struct Apple: Sendable {
        /// `ISSUER_APPLE_SERVICES_ID`: the `client_id` sent to Apple and the only audience accepted back.
        public var servicesID: String
        /// `ISSUER_APPLE_AUTHORIZE_URL`.
        public var authorizeURL: String
        /// Where Apple posts back: `ISSUER_URL` + `/auth/apple/callback`.
        public var callbackURL: String

        /// The three values (docs/reference.md, "Configuration" and "Hosted sign-in").
        public init(servicesID: String, authorizeURL: String, callbackURL: String) {
            self.servicesID = servicesID
            self.authorizeURL = authorizeURL
            self.callbackURL = callbackURL
        }
    }

    private let apple: Apple?
    /// The other providers that serve the hosted flow, in the providers file's order.
    private let providers: [HostedProvider]
    /// Posts our code requests to providers' token endpoints.
    private let transport: (any FormPoster)?
    /// `ISSUER_URL`, sent back as `iss` on every redirect to the client (RFC 9207 §2).
    private let issuer: String
    private let clients: ClientRegistry
    private let sealer: AuthorizationStateSealer
    private let verifier: IdentityTokenVerifier
    private let store: any HostedSignInStoring
    private let clock: any WallClock
    /// Where Apple's one-time code from the form post goes (docs/reference.md, "Apple token
    /// custody"), as the native exchange hands it over; nil ignores it.
    private let custody: AppleTokenCustody?
    private let events: any AccountEvents

    /// - Parameters:
    ///   - apple: nil when `ISSUER_APPLE_SERVICES_ID` is unset.
    ///   - providers: the other providers with a client of their own; with neither, every step answers 503.
    ///   - transport: posts code requests to those providers' token endpoints.
    ///   - issuer: `ISSUER_URL`, as the tokens' `iss`.
    public init(
        apple: Apple?, providers: [HostedProvider] = [], transport: (any FormPoster)? = nil, issuer: String,
        clients: ClientRegistry, sealer: AuthorizationStateSealer, verifier: IdentityTokenVerifier, store: any HostedSignInStoring,
        clock: any WallClock, custody: AppleTokenCustody? = nil, events: any AccountEvents = UncountedAccountEvents()
    ) {
        self.events = events
        self.apple = apple
        self.providers = providers
        self.transport = transport
        self.issuer = issuer
        self.clients = clients
        self.sealer = sealer
        self.verifier = verifier
        self.store = store
        self.clock = clock
        self.custody = custody
    }

    static let notConfigured = Outcome.page(status: 503, message: PageMessage(.notConfigured))

    /// The names of the providers the hosted flow can use, Apple first.
    private var available: [String] { (apple == nil ? [] : ["apple"]) + providers.map(\.name) }

    /// `GET /oauth2/authorize`: validate, seal the request into a state, then send the browser to
    /// the provider the request names (`provider`, or `idp_hint`), to the only one there is, or to
    /// a chooser page whose links each carry that state sealed for their own provider.
    public func authorize(_ parameters: [String: String], repeated: Set<String>) async -> Outcome {
        guard !available.isEmpty else { return Self.notConfigured }
        switch AuthorizationRequest.validate(parameters, repeated: repeated, clients: clients) {
        case .untrusted(let message):
            return .page(status: 400, message: message)
        case .redirect(let redirectURI, let error, let description, let state):
            return toClient(redirectURI, [("error", error.rawValue), ("error_description", description), ("state", state)])
        case .valid(let request):
            let requested = parameters["provider"] ?? parameters["idp_hint"]
            if let requested, !available.contains(requested) {
                return toClient(request.redirectURI, [
                    ("error", OAuthError.Code.invalidRequest.rawValue),
                    ("error_description", "The provider is not one this server offers."), ("state", request.state),
                ])
            }
            let state = AuthorizationState(request: request, provider: requested ?? available[0], now: clock.now)
            if let chosen = requested ?? (available.count == 1 ? available[0] : nil) {
                guard let url = await authorizationURL(state.sent(to: chosen)) else {
                    return toClient(request.redirectURI, [
                        ("error", OAuthError.Code.temporarilyUnavailable.rawValue),
                        ("error_description", "The provider cannot be reached; try again shortly."), ("state", request.state),
                    ])
                }
                return .redirect(url)
            }
            var choices: [Choice] = []
            for name in available {
                guard let url = await authorizationURL(state.sent(to: name)) else { continue }
                if name == "apple" {
                    choices.append(Choice(label: "Apple", url: url, brand: .apple))
                } else if let provider = providers.first(where: { $0.name == name }) {
                    choices.append(Choice(label: provider.displayName, url: url, brand: provider.brand))
                }
            }
            guard let client = clients.client(id: request.clientID) else { return .page(status: 400, message: PageMessage(.clientUnknown)) }
            return .choose(choices, client: client)
        }
    }

    /// Where to send the browser for the provider `state` is sealed for; nil when that provider's
    /// endpoints cannot be found.
    private func authorizationURL(_ state: AuthorizationState) async -> String? {
        let name = state.provider
        let sealed = sealer.seal(state)
        if name == "apple", let apple {
            return RedirectURI.adding([
                ("response_type", "code id_token"), ("response_mode", "form_post"), ("client_id", apple.servicesID),
                ("redirect_uri", apple.callbackURL), ("scope", "name email"), ("state", sealed),
                ("nonce", NoncePolicy.hashed(state.providerNonce)),
            ], to: apple.authorizeURL)
        }
        guard let provider = providers.first(where: { $0.name == name }), let verifier = state.providerVerifier,
              let endpoint = try? await provider.endpoints.resolve().authorizationEndpoint
        else { return nil }
        return RedirectURI.adding([
            ("response_type", "code"), ("client_id", provider.clientID), ("redirect_uri", provider.callbackURL),
            ("scope", provider.scopes.joined(separator: " ")), ("state", sealed),
            ("nonce", NoncePolicy.hashed(state.providerNonce)),
            ("code_challenge", PKCE.challenge(forVerifier: verifier)), ("code_challenge_method", "S256"),
        ], to: endpoint.absoluteString)
    }

    /// `POST /auth/apple/callback`: Apple's `form_post` (`state`, `code`, `id_token`, `user` on
    /// first consent, or `error`).
    public func callback(
        _ form: [String: String], userAgent: String?, clientIP: String?, logger: Logger
    ) async -> Outcome {
        guard let apple else { return Self.notConfigured }
        let opened: (state: AuthorizationState, client: OAuthClient)
        switch open(form["state"], at: "apple", logger: logger) {
        case .success(let value): opened = value
        case .failure(let refusal): return refusal.outcome
        }
        let (state, client) = opened
        if await alreadySpent(state, logger: logger) { return Self.alreadyUsed }
        // Apple's discovery promises no `iss` (RFC 9207 §3); one it sends is still checked (§2.4).
        if let refusal = Self.refusedIssuer(form["iss"], of: verifier.provider, required: false, logger: logger) { return refusal }
        let fail = failure(state.request, provider: "apple", logger: logger)
        if let error = form["error"] {
            // Apple's `user_cancelled_authorize` and anything else it reports end the same way.
            return fail(.accessDenied, "The user did not complete Sign in with Apple.", "apple error \(error.prefix(64))")
        }
        guard let idToken = form["id_token"] else {
            return fail(.accessDenied, "Sign in with Apple returned no identity token.", "no id_token")
        }
        let identity: ExternalIdentity
        do {
            identity = try await verifier.verify(
                idToken, audiences: client.accepts(appleAudience: apple.servicesID) ? [apple.servicesID] : [],
                nonce: state.providerNonce, noncePolicy: NoncePolicy(required: true))
        } catch .keysUnavailable(let reason) {
            return fail(.temporarilyUnavailable, "Apple cannot be reached; try again shortly.", "apple keys: \(reason)")
        } catch {
            return fail(.accessDenied, "Sign in with Apple could not be verified.", "\(error)")
        }
        // OIDC Core §3.3.2.11: a token that carries `c_hash` names the code posted beside it, so
        // Apple's code of another sign-in cannot ride along with this token.
        if let codeHash = identity.codeHash {
            guard let appleCode = form["code"], ConstantTime.equals(Array(IDTokenClaims.codeHash(of: appleCode).utf8), Array(codeHash.utf8)) else {
                return fail(.accessDenied, "Sign in with Apple could not be verified.", "c_hash does not match the code")
            }
        }
        let name = AppleUserJSON(form["user"])
        return await complete(
            identity, givenName: name.givenName, familyName: name.familyName, state: state, client: client,
            userAgent: userAgent, clientIP: clientIP, logger: logger
        ) { userID in
            // Apple's code is bounded as the native exchange bounds it; an odd one is not worth a
            // failed sign-in, only not worth sending to Apple.
            if let appleCode = form["code"], appleCode.utf8.count <= AppleTokenCustody.maximumCodeLength,
               !appleCode.containsControlCharacters, let custody {
                // Issued to the Services ID; Apple wants the same redirect_uri back for a web code.
                await custody.custody(
                    authorizationCode: appleCode, clientID: apple.servicesID, userID: userID, redirectURI: apple.callbackURL,
                    logger: logger)
            }
        }
    }

    /// `GET /auth/{provider}/callback`: a provider's redirect after the user signed in there
    /// (`code` and `state`, or `error`). The issuer redeems the code at the provider's token
    /// endpoint with its client secret and PKCE verifier, verifies the ID token in the answer
    /// (audience: its client id; the nonce it sent), and keeps nothing else of the answer: no
    /// provider access or refresh token is stored.
    public func providerCallback(
        _ name: String, query: [String: String], userAgent: String?, clientIP: String?, logger: Logger
    ) async -> Outcome {
        guard let provider = providers.first(where: { $0.name == name }), let transport else {
            return .page(status: 404, message: PageMessage(.providerUnknown))
        }
        let opened: (state: AuthorizationState, client: OAuthClient)
        switch open(query["state"], at: name, logger: logger) {
        case .success(let value): opened = value
        case .failure(let refusal): return refusal.outcome
        }
        let (state, client) = opened
        if await alreadySpent(state, logger: logger) { return Self.alreadyUsed }
        let fail = failure(state.request, provider: name, logger: logger)
        let display = provider.displayName
        // The discovery document says whether `iss` is promised (RFC 9207). A user who cancelled
        // still gets `access_denied` when it cannot be fetched: nothing is sent anywhere then, and
        // an `iss` that is present is checked all the same.
        let resolved: Result<ProviderEndpoints.Resolved, any Error>
        do { resolved = .success(try await provider.endpoints.resolve()) } catch { resolved = .failure(error) }
        let promisesIssuer = (try? resolved.get())?.authorizationResponseIssParameterSupported ?? false
        if let refusal = Self.refusedIssuer(query["iss"], of: provider.verifier.provider, required: promisesIssuer, logger: logger) {
            return refusal
        }
        if let error = query["error"] {
            return fail(.accessDenied, "The user did not complete sign-in with \(display).", "\(name) error \(error.prefix(64))")
        }
        let endpoints: ProviderEndpoints.Resolved
        switch resolved {
        case .success(let value): endpoints = value
        case .failure(let error):
            return fail(.temporarilyUnavailable, "\(display) cannot be reached; try again shortly.", "\(name) endpoints: \(error)")
        }
        guard let code = query["code"], code.utf8.count <= 4096, !code.containsControlCharacters, let verifier = state.providerVerifier else {
            return fail(.accessDenied, "\(display) returned no usable code.", "no code")
        }
        let idToken: String
        do {
            guard let tokenEndpoint = endpoints.tokenEndpoint else {
                return fail(.temporarilyUnavailable, "\(display) cannot be reached; try again shortly.", "no token endpoint")
            }
            let answer = try await transport.postForm(to: tokenEndpoint, fields: [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", provider.callbackURL),
                ("client_id", provider.clientID), ("client_secret", provider.clientSecret.revealed), ("code_verifier", verifier),
            ], timeout: .seconds(5))
            guard answer.status == 200 else {
                // A refused code (`invalid_grant`) is the user's sign-in failing; anything else the provider's outage.
                return answer.status == 400
                    ? fail(.accessDenied, "\(display) did not accept the sign-in.", "\(name) token endpoint HTTP 400 \(answer.oauthError ?? "")")
                    : fail(.temporarilyUnavailable, "\(display) cannot be reached; try again shortly.", "\(name) token endpoint HTTP \(answer.status)")
            }
            guard let object = try? JSONSerialization.jsonObject(with: answer.body) as? [String: Any],
                  let token = object["id_token"] as? String
            else { return fail(.accessDenied, "\(display) returned no ID token.", "\(name) answer without id_token") }
            idToken = token
        } catch {
            return fail(.temporarilyUnavailable, "\(display) cannot be reached; try again shortly.", "\(name) token endpoint: \(error)")
        }
        let identity: ExternalIdentity
        do {
            identity = try await provider.verifier.verify(
                idToken, audiences: [provider.clientID], nonce: state.providerNonce, noncePolicy: NoncePolicy(required: true))
        } catch .keysUnavailable(let reason) {
            return fail(.temporarilyUnavailable, "\(display) cannot be reached; try again shortly.", "\(name) keys: \(reason)")
        } catch {
            return fail(.accessDenied, "Sign-in with \(display) could not be verified.", "\(error)")
        }
        return await complete(
            identity, givenName: nil, familyName: nil,
            state: state, client: client, userAgent: userAgent, clientIP: clientIP, logger: logger) { _ in }
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

    /// RFC 9207 §2.4: an `iss` in the provider's answer must be that provider's issuer, and one is
    /// required where its discovery says `authorization_response_iss_parameter_supported`, so an
    /// answer from another authorization server (a mix-up) is a plain 400 page before anything is
    /// sent to a token endpoint. Answers nil when the answer passes.
    private static func refusedIssuer(_ iss: String?, of provider: IdentityProvider, required: Bool, logger: Logger) -> Outcome? {
        if let iss, provider.issuers.contains(iss) { return nil }
        if iss == nil, !required { return nil }
        logger.warning("hosted sign-in refused", metadata: [
            "reason": iss == nil ? "no iss from a provider that sends one (RFC 9207)" : "iss is not the provider's (RFC 9207)",
            "provider": "\(provider.name)",
        ])
        return .page(status: 400, message: PageMessage(.wrongIssuer))
    }

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
    /// `afterSignIn` runs once the user exists (Apple's code goes to custody).
    private func complete(
        _ identity: ExternalIdentity, givenName: String?, familyName: String?,
        state: AuthorizationState, client: OAuthClient,
        userAgent: String?, clientIP: String?, logger: Logger, afterSignIn: (UUID) async -> Void
    ) async -> Outcome {
        let request = state.request
        let outcome: (signIn: SignIn, code: AuthorizationCode)
        do {
            let signIn = SignInRequest(
                identity: identity, givenName: givenName, familyName: familyName, clientID: client.clientID,
                scopes: request.scopes, nonce: request.nonce,
                userAgent: UserAgent.bounded(userAgent),
                clientIP: clientIP)
            outcome = try await store.signIn(
                signIn,
                authorization: request, codeLifetime: AuthorizationCode.lifetime,
                stateHash: Self.stateHash(state),
                stateExpiresAt: Date(timeIntervalSince1970: TimeInterval(state.expiresAt)))
        } catch is SignInStore.StateAlreadySpent {
            // A replayed callback: the state signed someone in already (docs/reference.md, "Hosted sign-in").
            logger.info("hosted sign-in refused", metadata: ["reason": "state already used", "client_id": "\(request.clientID)"])
            return Self.alreadyUsed
        } catch is SignInStore.IdentityDisabled {
            // docs/reference.md, "Google's account-protection events": Google disabled the account for hijacking.
            return failure(request, provider: identity.provider, logger: logger)(
                .accessDenied, SignInStore.IdentityDisabled.description, "identity disabled (hijacking)")
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

/// The `user` member Apple posts on the first consent only:
/// `{"name": {"firstName": "…", "lastName": "…"}, "email": "…"}`. Read leniently: a part that is
/// missing, too long or holds control characters is dropped, never a reason to fail the sign-in.
struct AppleUserJSON {
    var givenName: String?
    var familyName: String?

    init(_ text: String?) {
        guard let text, text.utf8.count <= 4096, let data = text.data(using: .utf8),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let name = object["name"] as? [String: Any]
        else { return }
        givenName = Self.part(name["firstName"])
        familyName = Self.part(name["lastName"])
    }

    private static func part(_ value: Any?) -> String? {
        guard let text = value as? String, !text.isEmpty,
              text.utf8.count <= IdentityExchange.Request.maximumNamePartLength, !text.containsControlCharacters
        else { return nil }
        return text
    }
}
