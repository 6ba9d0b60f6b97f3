import Foundation
import Logging

/// The hosted flow through Facebook Login (docs/reference.md, "Facebook"): the browser goes to
/// Facebook's OAuth dialog with our app id, the sealed state and a PKCE S256 challenge; its
/// callback's code is redeemed at the token endpoint with the app secret and our verifier, and the
/// access token that comes back is checked exactly as a native app's is (`FacebookNativeCredential`),
/// since Facebook's answer carries no ID token to verify.
public struct FacebookHostedFlow: HostedFlowConnector {
    public let id: String
    public var label: String { "Facebook" }
    public var brand: ProviderBrand { .facebook }
    public var responseMode: HostedFlowResponseMode { .query }

    private let appID: String
    private let appSecret: Secret<String>
    private let authorizationEndpoint: URL
    private let tokenEndpoint: URL
    /// `ISSUER_URL` + `/auth/{id}/callback`.
    private let callbackURL: String
    private let credential: FacebookNativeCredential
    private let transport: any FormPoster

    public init(
        id: String, settings: ProviderSettings, callbackURL: String, credential: FacebookNativeCredential, transport: any FormPoster
    ) {
        self.id = id
        self.appID = settings.clientID ?? ""
        self.appSecret = settings.clientSecret ?? Secret("")
        // `ProviderSettings.facebook` sets both; a value built otherwise gets the same defaults.
        let version = settings.graphVersion ?? ProviderSettings.Facebook.graphVersion
        self.authorizationEndpoint = settings.authorizationEndpoint ?? ProviderSettings.Facebook.dialogURL(version: version)
        self.tokenEndpoint = settings.tokenEndpoint
            ?? ProviderSettings.Facebook.tokenEndpoint(graph: settings.graphURL ?? ProviderSettings.Facebook.graphURL, version: version)
        self.callbackURL = callbackURL
        self.credential = credential
        self.transport = transport
    }

    /// What the dialog asks for: the profile and the address (Facebook's defaults for Login).
    static let scope = "public_profile email"

    public func authorizationURL(sealedState: String, for state: AuthorizationState) async -> String? {
        guard let verifier = state.providerVerifier else { return nil }
        return RedirectURI.adding([
            ("client_id", appID), ("redirect_uri", callbackURL), ("response_type", "code"), ("scope", Self.scope),
            ("state", sealedState), ("code_challenge", PKCE.challenge(forVerifier: verifier)), ("code_challenge_method", "S256"),
        ], to: authorizationEndpoint.absoluteString)
    }

    public func identity(
        from query: [String: String], state: AuthorizationState, client: OAuthClient, logger: Logger
    ) async throws(HostedFlowFailure) -> HostedFlowIdentity {
        if let error = query["error"] {
            throw .refused(.accessDenied, description: "The user did not complete sign-in with Facebook.", reason: "facebook error \(error.prefix(64))")
        }
        let unreachable = "Facebook cannot be reached; try again shortly."
        guard let code = query["code"], !code.isEmpty, code.utf8.count <= 4096, !code.containsControlCharacters,
              let codeVerifier = state.providerVerifier
        else {
            throw .refused(.accessDenied, description: "Facebook returned no usable code.", reason: "no code")
        }
        let answer: FormPostAnswer
        do {
            answer = try await transport.postForm(to: tokenEndpoint, fields: [
                ("client_id", appID), ("client_secret", appSecret.revealed), ("redirect_uri", callbackURL), ("code", code),
                ("code_verifier", codeVerifier),
            ], timeout: FacebookGraph.deadline)
        } catch {
            throw .refused(.temporarilyUnavailable, description: unreachable, reason: "facebook token endpoint: \(RemoteFetchFailure(of: error).summary)")
        }
        guard answer.status == 200 else {
            // Facebook refuses a spent or foreign code with a 400; anything else is its outage.
            throw (400..<500).contains(answer.status)
                ? HostedFlowFailure.refused(.accessDenied, description: "Facebook did not accept the sign-in.", reason: "facebook token endpoint HTTP \(answer.status)")
                : HostedFlowFailure.refused(.temporarilyUnavailable, description: unreachable, reason: "facebook token endpoint HTTP \(answer.status)")
        }
        guard let object = try? JSONSerialization.jsonObject(with: answer.body) as? [String: Any],
              let accessToken = object["access_token"] as? String, !accessToken.isEmpty,
              accessToken.utf8.count <= IdentityTokenVerifier.maximumTokenLength
        else {
            throw .refused(.accessDenied, description: "Facebook returned no access token.", reason: "facebook answer without access_token")
        }
        do {
            let identity = try await credential.identity(accessToken: accessToken)
            return HostedFlowIdentity(identity, givenName: identity.givenName, familyName: identity.familyName)
        } catch .providerUnavailable(let reason) {
            throw .refused(.temporarilyUnavailable, description: unreachable, reason: reason)
        } catch {
            throw .refused(.accessDenied, description: "Sign-in with Facebook could not be verified.", reason: "\(error)")
        }
    }
}
