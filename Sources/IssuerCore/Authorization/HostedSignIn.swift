import Crypto
import Foundation
import JOSE
import Logging

/// The hosted Authorization Code flow through Sign in with Apple on the web (docs/reference.md, "Hosted sign-in"), without
/// HTTP: the authorization endpoint's decision (send the browser to Apple, show a page, or
/// redirect an error to the client) and the callback's (verify Apple's form post, sign in, and
/// redirect the client with a one-time code).
public struct HostedSignIn: Sendable {
    /// What the endpoint answers the browser.
    public enum Outcome: Sendable, Equatable {
        /// `302` to this URL: Apple, or the client's redirect URI.
        case redirect(String)
        /// A plain page with this status and text: the redirect URI is not (or no longer) known,
        /// so nothing may be redirected (RFC 6749 §4.1.2.1).
        case page(status: Int, message: String)
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

    /// What the callback hands to whoever keeps Apple's tokens (docs/reference.md, "Apple token custody"): Apple's one-time
    /// authorization code, the `client_id` it was issued to (the Services ID) and our user.
    public typealias AppleCodeHandler = @Sendable (_ code: String, _ clientID: String, _ userID: UUID, _ logger: Logger) async -> Void

    private let apple: Apple?
    /// `ISSUER_URL`, sent back as `iss` on every redirect to the client (RFC 9207 §2).
    private let issuer: String
    private let clients: ClientRegistry
    private let sealer: AuthorizationStateSealer
    private let verifier: IdentityTokenVerifier
    private let store: SignInStore
    private let clock: any WallClock
    private let onAppleCode: AppleCodeHandler?

    /// - Parameter apple: nil when `ISSUER_APPLE_SERVICES_ID` is unset: both steps answer 503.
    /// - Parameter issuer: `ISSUER_URL`, as the tokens' `iss`.
    public init(
        apple: Apple?, issuer: String, clients: ClientRegistry, sealer: AuthorizationStateSealer, verifier: IdentityTokenVerifier,
        store: SignInStore, clock: any WallClock, onAppleCode: AppleCodeHandler? = nil
    ) {
        self.apple = apple
        self.issuer = issuer
        self.clients = clients
        self.sealer = sealer
        self.verifier = verifier
        self.store = store
        self.clock = clock
        self.onAppleCode = onAppleCode
    }

    static let notConfigured = Outcome.page(
        status: 503, message: "Sign in with Apple on the web is not configured on this server (ISSUER_APPLE_SERVICES_ID is unset).")

    /// `GET /oauth2/authorize`: validate, seal the request into a state, send the browser to Apple.
    public func authorize(_ parameters: [String: String], repeated: Set<String>) -> Outcome {
        guard let apple else { return Self.notConfigured }
        switch AuthorizationRequest.validate(parameters, repeated: repeated, clients: clients) {
        case .untrusted(let message):
            return .page(status: 400, message: message)
        case .redirect(let redirectURI, let error, let description, let state):
            return toClient(redirectURI, [("error", error.rawValue), ("error_description", description), ("state", state)])
        case .valid(let request):
            let state = AuthorizationState(request: request, now: clock.now)
            return .redirect(RedirectURI.adding([
                ("response_type", "code id_token"), ("response_mode", "form_post"), ("client_id", apple.servicesID),
                ("redirect_uri", apple.callbackURL), ("scope", "name email"), ("state", sealer.seal(state)),
                ("nonce", NoncePolicy.hashed(state.appleNonce)),
            ], to: apple.authorizeURL))
        }
    }

    /// `POST /auth/apple/callback`: Apple's `form_post` (`state`, `code`, `id_token`, `user` on
    /// first consent, or `error`).
    public func callback(
        _ form: [String: String], userAgent: String?, clientIP: String?, logger: Logger
    ) async -> Outcome {
        guard let apple else { return Self.notConfigured }
        let state: AuthorizationState
        do {
            state = try sealer.open(form["state"] ?? "")
        } catch {
            logger.info("hosted sign-in refused", metadata: ["reason": "state \(error)"])
            return .page(status: 400, message: "This sign-in link is invalid or has expired. Start again from the app.")
        }
        let request = state.request
        func fail(_ code: OAuthError.Code, _ description: String, _ reason: String) -> Outcome {
            logger.info("hosted sign-in refused", metadata: ["reason": "\(reason)", "client_id": "\(request.clientID)"])
            return toClient(request.redirectURI, [("error", code.rawValue), ("error_description", description), ("state", request.state)])
        }
        guard let client = clients.client(id: request.clientID), client.redirectURIs.contains(request.redirectURI) else {
            return .page(status: 400, message: "The client of this sign-in is no longer registered.")
        }
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
                nonce: state.appleNonce, noncePolicy: NoncePolicy(required: true))
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
        let outcome: (signIn: SignIn, code: AuthorizationCode)
        do {
            outcome = try await store.signIn(
                SignInRequest(
                    identity: identity, givenName: name.givenName, familyName: name.familyName, clientID: client.clientID,
                    scopes: request.scopes, nonce: request.nonce,
                    userAgent: userAgent.map { $0.truncated(toUTF8Bytes: IdentityExchange.Request.maximumUserAgentLength).escapingControlCharacters },
                    clientIP: clientIP),
                authorization: request, codeLifetime: AuthorizationCode.lifetime,
                stateHash: Array(SHA256.hash(data: Data(state.appleNonce.utf8))),
                stateExpiresAt: Date(timeIntervalSince1970: TimeInterval(state.expiresAt)))
        } catch is SignInStore.StateAlreadySpent {
            // A replayed callback: the state signed someone in already (docs/reference.md, "Hosted sign-in").
            logger.info("hosted sign-in refused", metadata: ["reason": "state already used", "client_id": "\(request.clientID)"])
            return .page(status: 400, message: "This sign-in link was already used. Start again from the app.")
        } catch {
            let mapped = OAuthError.storage(error)
            return fail(mapped.code == .temporarilyUnavailable ? .temporarilyUnavailable : .serverError,
                        mapped.code == .temporarilyUnavailable ? "The service is briefly unavailable; try again." : "The sign-in could not be completed.",
                        "storage: \(error)")
        }
        logger.info("signed in", metadata: [
            "provider": "\(identity.provider)", "sub": "\(outcome.signIn.user.subject)", "sid": "\(outcome.signIn.sessionID)",
            "client_id": "\(client.clientID)", "flow": "hosted",
        ])
        // Apple's code is bounded as the native exchange bounds it; an odd one is not worth a
        // failed sign-in, only not worth sending to Apple.
        if let appleCode = form["code"], appleCode.utf8.count <= AppleTokenCustody.maximumCodeLength,
           !appleCode.containsControlCharacters, let onAppleCode {
            await onAppleCode(appleCode, apple.servicesID, outcome.signIn.user.id, logger)
        }
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
