import Foundation
import Logging

/// Sign in with Apple on the web as a hosted-flow connector (docs/reference.md, "Hosted sign-in"
/// and "Configuration"; `ISSUER_APPLE_*`): Apple answers with `response_mode=form_post` and
/// `response_type=code id_token`, so its identity is the ID token in the form, bound to our nonce
/// and, through `c_hash`, to the code beside it. No code is redeemed to sign in; the code goes to
/// Apple token custody afterwards, as the native exchange hands it over.
public struct AppleHostedFlow: HostedFlowConnector {
    /// Apple's id: the name its identities are stored under, and its callback's path.
    public static let id = IdentityProvider.apple.name

    public var id: String { Self.id }
    public var label: String { "Apple" }
    public var brand: ProviderBrand { .apple }
    public var responseMode: HostedFlowResponseMode { .formPost }

    /// `ISSUER_APPLE_SERVICES_ID`: the `client_id` sent to Apple and the only audience accepted back.
    public var servicesID: String
    /// `ISSUER_APPLE_AUTHORIZE_URL`.
    public var authorizeURL: String
    /// Where Apple posts back: `ISSUER_URL` + `/auth/apple/callback`.
    public var callbackURL: String
    /// Apple's ID tokens' verifier, the native exchange's (and so the same cache of Apple's keys).
    private let verifier: IdentityTokenVerifier
    /// Where Apple's one-time code from the form post goes (docs/reference.md, "Apple token
    /// custody"); nil ignores it.
    private let custody: AppleTokenCustody?

    /// The three settings (docs/reference.md, "Configuration" and "Hosted sign-in"), Apple's
    /// verifier, and token custody.
    public init(
        servicesID: String, authorizeURL: String, callbackURL: String, verifier: IdentityTokenVerifier,
        custody: AppleTokenCustody? = nil
    ) {
        self.servicesID = servicesID
        self.authorizeURL = authorizeURL
        self.callbackURL = callbackURL
        self.verifier = verifier
        self.custody = custody
    }

    /// `code id_token` by `form_post`, with the SHA-256 of our nonce (OIDC Core §3.3.2.1).
    public func authorizationURL(sealedState: String, for state: AuthorizationState) async -> String? {
        RedirectURI.adding([
            ("response_type", "code id_token"), ("response_mode", "form_post"), ("client_id", servicesID),
            ("redirect_uri", callbackURL), ("scope", "name email"), ("state", sealedState),
            ("nonce", NoncePolicy.hashed(state.providerNonce)),
        ], to: authorizeURL)
    }

    /// Apple's `form_post` (`state`, `code`, `id_token`, `user` on first consent, or `error`):
    /// the ID token verified for the Services ID (when the client accepts it) and our nonce, its
    /// `c_hash` against the code, and the name from `user`.
    public func identity(
        from form: [String: String], state: AuthorizationState, client: OAuthClient, logger: Logger
    ) async throws(HostedFlowFailure) -> HostedFlowIdentity {
        // Apple's discovery promises no `iss` (RFC 9207 §3); one it sends is still checked (§2.4).
        try HostedFlowFailure.checkIssuer(form["iss"], of: verifier.provider, required: false, logger: logger)
        if let error = form["error"] {
            // Apple's `user_cancelled_authorize` and anything else it reports end the same way.
            throw .refused(.accessDenied, description: "The user did not complete Sign in with Apple.", reason: "apple error \(error.prefix(64))")
        }
        guard let idToken = form["id_token"] else {
            throw .refused(.accessDenied, description: "Sign in with Apple returned no identity token.", reason: "no id_token")
        }
        let identity: ExternalIdentity
        do {
            identity = try await verifier.verify(
                idToken, audiences: client.accepts(appleAudience: servicesID) ? [servicesID] : [],
                nonce: state.providerNonce, noncePolicy: NoncePolicy(required: true))
        } catch .keysUnavailable(let reason) {
            throw .refused(.temporarilyUnavailable, description: "Apple cannot be reached; try again shortly.", reason: "apple keys: \(reason)")
        } catch {
            throw .refused(.accessDenied, description: "Sign in with Apple could not be verified.", reason: "\(error)")
        }
        // OIDC Core §3.3.2.11: a token that carries `c_hash` names the code posted beside it, so
        // Apple's code of another sign-in cannot ride along with this token.
        if let codeHash = identity.codeHash {
            guard let appleCode = form["code"], ConstantTime.equals(Array(IDTokenClaims.codeHash(of: appleCode).utf8), Array(codeHash.utf8)) else {
                throw .refused(.accessDenied, description: "Sign in with Apple could not be verified.", reason: "c_hash does not match the code")
            }
        }
        let name = AppleUserJSON(form["user"])
        return HostedFlowIdentity(identity, givenName: name.givenName, familyName: name.familyName)
    }

    /// Apple's code goes to custody, bounded as the native exchange bounds it: an odd one is not
    /// worth a failed sign-in, only not worth sending to Apple.
    public func signedIn(userID: UUID, parameters form: [String: String], logger: Logger) async {
        guard let appleCode = form["code"], appleCode.utf8.count <= AppleTokenCustody.maximumCodeLength,
              !appleCode.containsControlCharacters, let custody
        else { return }
        // Issued to the Services ID; Apple wants the same redirect_uri back for a web code.
        await custody.custody(
            authorizationCode: appleCode, clientID: servicesID, userID: userID, redirectURI: callbackURL, logger: logger)
    }
}
