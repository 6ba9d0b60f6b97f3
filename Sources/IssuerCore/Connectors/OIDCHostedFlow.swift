import Foundation
import Logging

/// A provider of `ISSUER_PROVIDERS_FILE` as a hosted-flow connector (docs/reference.md, "Hosted
/// sign-in"): the issuer is its confidential client, with Authorization Code and PKCE S256, a
/// fresh nonce and the sealed single-use state, redirect URI `ISSUER_URL` +
/// `/auth/{id}/callback`. Its callback's code is redeemed at its token endpoint and the ID token
/// in the answer verified; nothing else of the answer is kept: no provider access or refresh
/// token is stored. Built from a provider's settings, for a provider with a client of its own.
public struct OIDCHostedFlow: HostedFlowConnector {
    /// The provider's `id`.
    public var name: String
    /// What its defaults came from, which also chooses its button (`brand`).
    public var kind: ProviderSettings.Kind
    /// The issuer's client at the provider.
    public var clientID: String
    public var clientSecret: Secret<String>
    public var scopes: [String]
    /// `ISSUER_URL` + `/auth/{id}/callback`.
    public var callbackURL: String
    /// Where its authorization and token endpoints are.
    public var endpoints: ProviderEndpoints
    /// Its ID tokens' verifier (audience: `clientID`).
    public var verifier: IdentityTokenVerifier
    /// Posts our code requests to its token endpoint.
    private let transport: any FormPoster

    public init(
        name: String, clientID: String, clientSecret: Secret<String>, scopes: [String], callbackURL: String,
        endpoints: ProviderEndpoints, verifier: IdentityTokenVerifier, transport: any FormPoster,
        kind: ProviderSettings.Kind = .oidc
    ) {
        self.name = name
        self.kind = kind
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.scopes = scopes
        self.callbackURL = callbackURL
        self.endpoints = endpoints
        self.verifier = verifier
        self.transport = transport
    }

    public var id: String { name }
    public var label: String { displayName }
    public var responseMode: HostedFlowResponseMode { .query }

    /// What the sign-in page calls it.
    public var displayName: String {
        name.prefix(1).uppercased() + name.dropFirst()
    }

    /// Its button on the sign-in page (docs/reference.md, "The pages people see"): Google's for
    /// `google`, a neutral one for any other OpenID provider. A kind added later gets its own
    /// here, where the compiler asks for it.
    public var brand: ProviderBrand {
        switch kind {
        case .google: .google
        case .oidc: .neutral
        case .facebook: .facebook
        }
    }

    /// Its discovered authorization endpoint, with our client, scopes, the SHA-256 of our nonce
    /// and the S256 challenge of our verifier (RFC 7636 §4.3).
    public func authorizationURL(sealedState: String, for state: AuthorizationState) async -> String? {
        guard let verifier = state.providerVerifier, let endpoint = try? await endpoints.resolve().authorizationEndpoint
        else { return nil }
        return RedirectURI.adding([
            ("response_type", "code"), ("client_id", clientID), ("redirect_uri", callbackURL),
            ("scope", scopes.joined(separator: " ")), ("state", sealedState),
            ("nonce", NoncePolicy.hashed(state.providerNonce)),
            ("code_challenge", PKCE.challenge(forVerifier: verifier)), ("code_challenge_method", "S256"),
        ], to: endpoint.absoluteString)
    }

    /// The provider's redirect after the user signed in there (`code` and `state`, or `error`):
    /// the code redeemed at its token endpoint with our client secret and PKCE verifier, and the
    /// ID token of the answer verified (audience: our client id; the nonce we sent).
    public func identity(
        from query: [String: String], state: AuthorizationState, client: OAuthClient, logger: Logger
    ) async throws(HostedFlowFailure) -> HostedFlowIdentity {
        let display = displayName
        // The discovery document says whether `iss` is promised (RFC 9207). A user who cancelled
        // still gets `access_denied` when it cannot be fetched: nothing is sent anywhere then, and
        // an `iss` that is present is checked all the same.
        let resolved: Result<ProviderEndpoints.Resolved, any Error>
        do { resolved = .success(try await endpoints.resolve()) } catch { resolved = .failure(error) }
        let promisesIssuer = (try? resolved.get())?.authorizationResponseIssParameterSupported ?? false
        try HostedFlowFailure.checkIssuer(query["iss"], of: verifier.provider, required: promisesIssuer, logger: logger)
        if let error = query["error"] {
            throw .refused(.accessDenied, description: "The user did not complete sign-in with \(display).", reason: "\(name) error \(error.prefix(64))")
        }
        let unreachable = "\(display) cannot be reached; try again shortly."
        let endpoints: ProviderEndpoints.Resolved
        switch resolved {
        case .success(let value): endpoints = value
        case .failure(let error):
            throw .refused(.temporarilyUnavailable, description: unreachable, reason: "\(name) endpoints: \(error)")
        }
        guard let code = query["code"], code.utf8.count <= 4096, !code.containsControlCharacters,
              let codeVerifier = state.providerVerifier
        else {
            throw .refused(.accessDenied, description: "\(display) returned no usable code.", reason: "no code")
        }
        guard let tokenEndpoint = endpoints.tokenEndpoint else {
            throw .refused(.temporarilyUnavailable, description: unreachable, reason: "no token endpoint")
        }
        let answer: FormPostAnswer
        do {
            answer = try await transport.postForm(to: tokenEndpoint, fields: [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", callbackURL),
                ("client_id", clientID), ("client_secret", clientSecret.revealed), ("code_verifier", codeVerifier),
            ], timeout: .seconds(5))
        } catch {
            throw .refused(.temporarilyUnavailable, description: unreachable, reason: "\(name) token endpoint: \(error)")
        }
        guard answer.status == 200 else {
            // A refused code (`invalid_grant`) is the user's sign-in failing; anything else the provider's outage.
            throw answer.status == 400
                ? HostedFlowFailure.refused(.accessDenied, description: "\(display) did not accept the sign-in.", reason: "\(name) token endpoint HTTP 400 \(answer.oauthError ?? "")")
                : HostedFlowFailure.refused(.temporarilyUnavailable, description: unreachable, reason: "\(name) token endpoint HTTP \(answer.status)")
        }
        guard let object = try? JSONSerialization.jsonObject(with: answer.body) as? [String: Any],
              let idToken = object["id_token"] as? String
        else {
            throw .refused(.accessDenied, description: "\(display) returned no ID token.", reason: "\(name) answer without id_token")
        }
        do {
            return HostedFlowIdentity(try await verifier.verify(
                idToken, audiences: [clientID], nonce: state.providerNonce, noncePolicy: NoncePolicy(required: true)))
        } catch .keysUnavailable(let reason) {
            throw .refused(.temporarilyUnavailable, description: unreachable, reason: "\(name) keys: \(reason)")
        } catch {
            throw .refused(.accessDenied, description: "Sign-in with \(display) could not be verified.", reason: "\(error)")
        }
    }
}
