import Foundation
import JOSE
import Logging

/// RP-Initiated Logout 1.0 (docs/reference.md, "Sign-out") without HTTP: checks `id_token_hint`, `client_id` and
/// `post_logout_redirect_uri`, revokes the hinted session, and says where the browser goes.
///
/// Everything is checked before anything is revoked, so a refused request changes nothing; and
/// without a hint nothing is revoked at all, so a logout link cannot end someone else's session.
public struct EndSession: Sendable {
    /// What the endpoint answers the browser.
    public enum Outcome: Sendable, Equatable {
        /// `302` to the client's registered post-logout redirect URI.
        case redirect(String)
        /// A page: `200` "signed out", `400` for a request that was refused, `503` when the
        /// session could not be revoked; the message in the reader's language.
        case page(status: Int, message: PageMessage)
    }

    /// The parameters, from the query or the form (RP-Initiated Logout §2).
    public struct Request: Sendable {
        /// `id_token_hint`: an ID token we issued; expired ones are accepted.
        public var idTokenHint: String?
        /// `client_id`: must equal the hint's `aud` when both are given.
        public var clientID: String?
        /// `post_logout_redirect_uri`: followed only if registered for the client.
        public var postLogoutRedirectURI: String?
        /// `state`: added to the redirect as sent.
        public var state: String?

        /// All optional, as RP-Initiated Logout §2 has them.
        public init(idTokenHint: String?, clientID: String?, postLogoutRedirectURI: String?, state: String?) {
            self.idTokenHint = idTokenHint
            self.clientID = clientID
            self.postLogoutRedirectURI = postLogoutRedirectURI
            self.state = state
        }
    }

    private let issuer: String
    private let clients: ClientRegistry
    private let ring: @Sendable () -> KeyRing
    private let revocation: any SessionRevocationStoring
    private let clock: any WallClock

    /// - Parameters:
    ///   - issuer: `ISSUER_URL`, the `iss` a hint must carry.
    ///   - ring: the current key ring; a hint must be signed by one of its published keys.
    public init(
        issuer: String, clients: ClientRegistry, ring: @escaping @Sendable () -> KeyRing, revocation: any SessionRevocationStoring,
        clock: any WallClock
    ) {
        self.issuer = issuer
        self.clients = clients
        self.ring = ring
        self.revocation = revocation
        self.clock = clock
    }

    static let signedOut = Outcome.page(status: 200, message: PageMessage(.signedOut))

    /// Checks, revokes, and answers where the browser goes.
    public func end(_ request: Request, logger: Logger) async -> Outcome {
        var hint: Hint?
        if let text = request.idTokenHint {
            guard let verified = verify(text) else {
                logger.info("logout refused", metadata: ["reason": "invalid id_token_hint"])
                return .page(status: 400, message: PageMessage(.hintInvalid))
            }
            hint = verified
        }
        if let clientID = request.clientID, let hint, hint.aud != clientID {
            return .page(status: 400, message: PageMessage(.hintClientMismatch))
        }
        var redirect: String?
        if let uri = request.postLogoutRedirectURI {
            guard let client = (request.clientID ?? hint?.aud).flatMap(clients.client(id:)),
                  client.postLogoutRedirectURIs.contains(uri)
            else {
                return .page(status: 400, message: PageMessage(.postLogoutURIUnregistered))
            }
            redirect = RedirectURI.adding([("state", request.state)], to: uri)
        }
        if let hint, let sessionID = UUID(uuidString: hint.sid) {
            do {
                let revoked = try await revocation.revoke(sessionID: sessionID, reason: "signed out", at: clock.now)
                logger.info("signed out", metadata: ["sid": "\(hint.sid)", "revoked": "\(revoked)"])
            } catch {
                logger.warning("logout could not revoke the session", metadata: ["sid": "\(hint.sid)", "error": "\(error)"])
                return .page(status: 503, message: PageMessage(.signOutFailed))
            }
        }
        return redirect.map(Outcome.redirect) ?? Self.signedOut
    }

    /// The claims a hint is read for.
    struct Hint: Decodable {
        var iss: String
        var aud: String
        var sid: String
    }

    /// RP-Initiated Logout §2: an ID token we issued (RS256, `typ` JWT, a published key of the
    /// ring, our `iss`), expired or not.
    private func verify(_ token: String) -> Hint? {
        let now = clock.now
        let ring = ring()
        guard let verified = try? JWS.verify(token, allowedAlgorithms: [.rs256], key: { header in
            guard header.typ == IDTokenClaims.type, let kid = header.kid, let key = ring.key(kid: kid), key.isPublished(at: now)
            else { return nil }
            return key.publicKey
        }) else { return nil }
        guard let hint = try? JSONDecoder().decode(Hint.self, from: verified.payload), hint.iss == issuer else { return nil }
        return hint
    }
}
