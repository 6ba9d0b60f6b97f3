import DevSigner
import Foundation
import Hummingbird
import IssuerCore

/// Facebook Login's web side for the hosted flow: the dialog (one click signs a dev user in,
/// Cancel answers as a user who declined) and the token endpoint that redeems its codes for dev
/// access tokens, checking what Facebook checks (the app, its secret, the same `redirect_uri`,
/// each code once, within 10 minutes, and the PKCE S256 verifier, RFC 7636 §4.6, when the dialog
/// was sent a challenge).
extension DevFacebookGraph {
    /// How long a code of the dialog can be redeemed.
    static let codeLifetime: TimeInterval = 600
    /// The `expires_in` of the token endpoint's answer: a long-lived token's 60 days, as Facebook
    /// gives a web login.
    static let accessTokenLifetime = 5_183_944

    var dialogPath: String { "/\(version)/dialog/oauth" }
    var tokenPath: String { "/\(version)/oauth/access_token" }

    func addLogin(to router: Router<BasicRequestContext>) {
        router.get(RouterPath(dialogPath)) { request, _ in self.dialog(request) }
        router.get(RouterPath(dialogPath + "/approve")) { request, _ in self.approve(request) }
        router.get(RouterPath(tokenPath)) { request, _ in self.redeem(Self.parameters(request.uri.query)) }
        router.post(RouterPath(tokenPath)) { request, _ -> Response in
            let body = try await request.body.collect(upTo: Self.maximumBodySize)
            return self.redeem(Self.parameters(String(buffer: body)))
        }
    }

    /// What the dialog was asked, once it is a request Facebook would show a dialog for.
    struct DialogRequest {
        var redirectURI: String
        var state: String?
        var challenge: String?
    }

    /// The dialog's request, or the page Facebook would show instead of a dialog.
    static func dialogRequest(_ query: BrowserParameters?) -> Result<DialogRequest, DialogRefusal> {
        guard let query else { return .failure(DialogRefusal("The request could not be read.")) }
        guard query["client_id"] == DevSigner.facebookAppID else {
            return .failure(DialogRefusal("Invalid App ID: the stand-in's app is \(DevSigner.facebookAppID)."))
        }
        guard let redirectURI = query["redirect_uri"] else { return .failure(DialogRefusal("redirect_uri is missing.")) }
        guard (query["response_type"] ?? "code") == "code" else {
            return .failure(DialogRefusal("The stand-in answers response_type=code only."))
        }
        let challenge = query["code_challenge"]
        guard challenge == nil || query["code_challenge_method"] == PKCE.method else {
            return .failure(DialogRefusal("The stand-in takes code_challenge_method=S256 only."))
        }
        return .success(DialogRequest(redirectURI: redirectURI, state: query["state"], challenge: challenge))
    }

    /// Why no dialog is shown: a page, as Facebook shows, since the redirect URI cannot be trusted yet.
    struct DialogRefusal: Error {
        var reason: String
        init(_ reason: String) { self.reason = reason }

        var response: Response {
            let page = "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Facebook stand-in</title></head><body>"
                + "<h1>Facebook stand-in (development only)</h1><p>\(HTMLEscaping.escape(reason))</p></body></html>"
            return Response(status: .badRequest, headers: [.contentType: "text/html; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: page)))
        }
    }

    /// `GET /{version}/dialog/oauth`: one button per dev user and Cancel, nothing to type.
    func dialog(_ request: Request) -> Response {
        let query = Self.parameters(request.uri.query)
        if case .failure(let refusal) = Self.dialogRequest(query) { return refusal.response }
        let hidden = ["client_id", "redirect_uri", "state", "response_type", "scope", "code_challenge", "code_challenge_method"]
            .compactMap { name in
                query?[name].map { "<input type=\"hidden\" name=\"\(name)\" value=\"\(HTMLEscaping.escape($0))\">" }
            }.joined()
        let buttons = DevSigner.facebookUsers.map { "<button name=\"user\" value=\"\($0)\">Continue as \($0)</button> " }.joined()
            + "<button name=\"cancel\" value=\"1\">Cancel</button>"
        let scope = HTMLEscaping.escape(query?["scope"] ?? "public_profile")
        let page = "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Facebook stand-in</title></head><body>"
            + "<h1>Facebook stand-in (development only)</h1><p>Issuer dev asks for: \(scope)</p>"
            + "<form method=\"get\" action=\"\(dialogPath)/approve\">\(hidden)\(buttons)</form></body></html>"
        return Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: page)))
    }

    /// The dialog's buttons: back to `redirect_uri` with a code and `state`, or with Facebook's
    /// answer for a user who declined.
    func approve(_ request: Request) -> Response {
        let query = Self.parameters(request.uri.query)
        let asked: DialogRequest
        switch Self.dialogRequest(query) {
        case .success(let request): asked = request
        case .failure(let refusal): return refusal.response
        }
        if query?["cancel"] != nil {
            // Facebook form-encodes the description (`Permissions+error`).
            let location = RedirectURI.adding([
                ("error", "access_denied"), ("error_reason", "user_denied"), ("error_description", "Permissions error"), ("state", asked.state),
            ], to: asked.redirectURI).replacingOccurrences(of: "error_description=Permissions%20error", with: "error_description=Permissions+error")
            return Response(status: .found, headers: [.location: location])
        }
        guard let user = query?["user"] else { return DialogRefusal("Choose a dev user or Cancel.").response }
        let code = "dev-facebook-code-" + UUID().uuidString
        let issuedAt = now()
        codes.withLock {
            $0.issued[code] = Issued(subject: user, redirectURI: asked.redirectURI, challenge: asked.challenge, issuedAt: issuedAt)
        }
        let location = RedirectURI.adding([("code", code), ("state", asked.state)], to: asked.redirectURI)
        return Response(status: .found, headers: [.location: location])
    }

    /// `/{version}/oauth/access_token` (`GET` with a query, or `POST` with a form): a code of the
    /// dialog for a dev access token of its user. A code is gone once tried, right or wrong.
    func redeem(_ form: BrowserParameters?) -> Response {
        guard let form else { return Self.graphError("The request could not be read.", code: 100) }
        guard form["client_id"] == DevSigner.facebookAppID else {
            return Self.graphError("Error validating application. Invalid application ID.", code: 101)
        }
        guard form["client_secret"] == DevSigner.facebookAppSecret else {
            return Self.graphError("Error validating client secret.", code: 1)
        }
        guard let redirectURI = form["redirect_uri"] else { return Self.graphError("Missing redirect_uri parameter.", code: 191) }
        guard let code = form["code"] else { return Self.graphError("Missing authorization code", code: 100) }
        let found = codes.withLock { codes -> (issued: Issued?, used: Bool) in
            guard let issued = codes.issued.removeValue(forKey: code) else { return (nil, codes.redeemed.contains(code)) }
            codes.redeemed.insert(code)
            return (issued, false)
        }
        guard let issued = found.issued else {
            return found.used
                ? Self.graphError("This authorization code has been used.", code: 100, subcode: 36009)
                : Self.graphError("Invalid verification code format.", code: 100)
        }
        let now = now()
        guard now.timeIntervalSince(issued.issuedAt) <= Self.codeLifetime else {
            return Self.graphError("This authorization code has expired.", code: 100, subcode: 36007)
        }
        guard redirectURI == issued.redirectURI else {
            return Self.graphError(
                "Error validating verification code. Please make sure your redirect_uri is identical to the one you used in the OAuth dialog request",
                code: 100)
        }
        if let challenge = issued.challenge {
            guard let verifier = form["code_verifier"], PKCE.challenge(forVerifier: verifier) == challenge else {
                return Self.graphError("Invalid code verifier.", code: 100)
            }
        }
        let token = DevSigner.facebookAccessToken(
            subject: issued.subject, expiresAt: now.addingTimeInterval(TimeInterval(Self.accessTokenLifetime)))
        return Self.json(["access_token": token, "token_type": "bearer", "expires_in": Self.accessTokenLifetime])
    }
}
