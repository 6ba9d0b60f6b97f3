import DevSigner
import Foundation
import Hummingbird
import IssuerCore
import Synchronization

/// What `issuer dev facebook` answers, shaped as Facebook answers it: Limited Login's keys, the
/// Graph calls the issuer makes about a classic access token (`debug_token` with the app access
/// token, `me` with `appsecret_proof`), the Login dialog and its token endpoint
/// (DevFacebookGraph+Login.swift), and the removal of an app's permissions. Access tokens are the
/// stateless dev ones of ``DevSigner/facebookAccessToken(subject:expiresAt:)``; only the dialog's
/// codes are remembered, in memory. Development only.
final class DevFacebookGraph: Sendable {
    static let jwksPath = "/.well-known/oauth/openid/jwks/"
    /// What a request body may hold: a short form, no more than the issuer itself reads
    /// (docs/reference.md, "Faults and bad input": 64 KiB).
    static let maximumBodySize = 64 * 1024
    /// `debug_token`'s `scopes` for every dev token: what the hosted flow asks for.
    static let grantedScopes = ["public_profile", "email"]
    /// The Graph fields of a user the stand-in knows; `id` is in every answer, as Graph's.
    static let userFields = ["id", "name", "first_name", "last_name", "email"]

    let signer: DevSigner
    let now: @Sendable () -> Date
    /// One line per notable call (the permissions removals), for whoever runs the stand-in.
    let report: @Sendable (String) -> Void
    /// The dialog's codes not yet redeemed, and those redeemed (a second use is refused as Facebook refuses it).
    let codes = Mutex(Codes())

    struct Codes {
        var issued: [String: Issued] = [:]
        var redeemed: Set<String> = []
    }

    /// What a code of the dialog was issued for.
    struct Issued {
        var subject: String
        var redirectURI: String
        var challenge: String?
        var issuedAt: Date
    }

    init(signer: DevSigner, now: @escaping @Sendable () -> Date, report: @escaping @Sendable (String) -> Void) {
        self.signer = signer
        self.now = now
        self.report = report
    }

    var version: String { DevFacebookCommand.graphVersion }
    /// The app access token Facebook accepts in place of a user's for calls about the app.
    static let appAccessToken = DevSigner.facebookAppID + "|" + DevSigner.facebookAppSecret

    func router() -> Router<BasicRequestContext> {
        let router = Router()
        let jwks = ByteBuffer(data: signer.jwksJSON)
        router.get(RouterPath(Self.jwksPath)) { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json", .cacheControl: "public, max-age=300"], body: .init(byteBuffer: jwks))
        }
        router.get(RouterPath("/\(version)/debug_token")) { request, _ in self.debugToken(request) }
        router.get(RouterPath("/\(version)/me")) { request, _ in self.me(request) }
        router.delete(RouterPath("/\(version)/:user/permissions")) { request, context -> Response in
            let body = try await request.body.collect(upTo: Self.maximumBodySize)
            return self.removePermissions(request, body: String(buffer: body), user: context.parameters.get("user") ?? "")
        }
        addLogin(to: router)
        return router
    }

    /// `GET /{version}/debug_token?input_token=…` with the app access token: what Facebook knows
    /// of a user token. A token that is not a dev one is answered as Facebook answers a token it
    /// cannot read: `200` with `is_valid: false`.
    func debugToken(_ request: Request) -> Response {
        let query = Self.parameters(request.uri.query)
        guard Self.accessToken(request, query) == Self.appAccessToken else {
            return Self.graphError("Invalid OAuth access token signature.", code: 190)
        }
        guard proofHolds(query, token: Self.appAccessToken, required: false) else {
            return Self.graphError("Invalid appsecret_proof provided in the API argument", code: 100)
        }
        guard let input = query?["input_token"] else {
            return Self.graphError("(#100) The parameter input_token is required", code: 100)
        }
        guard let token = DevSigner.facebookAccessTokenContents(input) else {
            return Self.json(["data": ["is_valid": false, "error": ["code": 190, "message": "Invalid OAuth access token."]]])
        }
        return Self.json(["data": [
            "app_id": DevSigner.facebookAppID, "type": "USER", "application": "Issuer dev",
            "expires_at": Int(token.expiresAt.timeIntervalSince1970), "is_valid": token.isValid(at: now()),
            "scopes": Self.grantedScopes, "user_id": token.subject,
        ]])
    }

    /// `GET /{version}/me?fields=…` with a user's token and its `appsecret_proof` (required, as
    /// in an app whose settings require it): the user's fields asked for, `id` always.
    func me(_ request: Request) -> Response {
        let query = Self.parameters(request.uri.query)
        guard let accessToken = Self.accessToken(request, query) else {
            return Self.graphError("An active access token must be used to query information about the current user.", code: 2500)
        }
        guard proofHolds(query, token: accessToken, required: true) else {
            return Self.graphError("Invalid appsecret_proof provided in the API argument", code: 100)
        }
        guard let token = DevSigner.facebookAccessTokenContents(accessToken) else {
            return Self.graphError("Invalid OAuth access token - Cannot parse access token", code: 190)
        }
        guard token.isValid(at: now()) else {
            return Self.graphError("Error validating access token: Session has expired.", code: 190, subcode: 463)
        }
        let requested = (query?["fields"] ?? "id,name").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        if let unknown = requested.first(where: { !Self.userFields.contains($0) }) {
            return Self.graphError("(#100) Tried accessing nonexisting field (\(unknown)) on node type (User)", code: 100)
        }
        let profile = DevSigner.FacebookProfile(id: token.subject)
        let all: [String: String] = [
            "id": profile.id, "name": profile.name, "first_name": profile.givenName, "last_name": profile.familyName, "email": profile.email,
        ]
        return Self.json(all.filter { $0.key == "id" || requested.contains($0.key) })
    }

    /// `DELETE /{version}/{user id}/permissions` with the app access token: the app's
    /// permissions removed, as an account deletion asks. The stand-in keeps no grants, so it
    /// only says so, naming the user.
    func removePermissions(_ request: Request, body: String, user: String) -> Response {
        let query = Self.parameters(request.uri.query)
        let form = Self.parameters(body)
        guard (Self.accessToken(request, query) ?? form?["access_token"]) == Self.appAccessToken else {
            return Self.graphError("Invalid OAuth access token signature.", code: 190)
        }
        report("permissions removed: the app no longer has user \(user)")
        return Self.json(["success": true])
    }

    /// Whether the call's `appsecret_proof` proves `token`; a missing one passes unless required.
    func proofHolds(_ query: BrowserParameters?, token: String, required: Bool) -> Bool {
        guard let proof = query?["appsecret_proof"] else { return !required }
        // In constant time, as Facebook compares it.
        return ConstantTime.equals(Array(proof.lowercased().utf8), Array(DevSigner.facebookAppSecretProof(for: token).utf8))
    }

    /// A query or form's parameters; nil for a malformed one.
    static func parameters(_ text: String?) -> BrowserParameters? {
        try? BrowserParameters.parse(text ?? "")
    }

    /// The access token of a Graph call: `access_token`, or the `Authorization` header's
    /// (`Bearer` or Graph's older `OAuth`).
    static func accessToken(_ request: Request, _ query: BrowserParameters?) -> String? {
        if let token = query?["access_token"] { return token }
        guard let header = request.headers[.authorization] else { return nil }
        for scheme in ["Bearer ", "OAuth "] where header.lowercased().hasPrefix(scheme.lowercased()) {
            return String(header.dropFirst(scheme.count))
        }
        return nil
    }

    /// Graph's error answer: `{"error": {"message", "type": "OAuthException", "code", …}}`, `400`.
    static func graphError(_ message: String, code: Int, subcode: Int? = nil) -> Response {
        var error: [String: Any] = ["message": message, "type": "OAuthException", "code": code, "fbtrace_id": "dev"]
        if let subcode { error["error_subcode"] = subcode }
        return json(["error": error], status: .badRequest)
    }

    static func json(_ object: [String: Any], status: HTTPResponse.Status = .ok) -> Response {
        // Strings, numbers and booleans only: serializing cannot fail.
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return Response(status: status, headers: [.contentType: "application/json; charset=UTF-8"], body: .init(byteBuffer: ByteBuffer(data: data)))
    }
}
