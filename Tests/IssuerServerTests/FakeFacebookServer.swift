import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IssuerCore
import Synchronization
import TestSupport

/// Plays Facebook over real HTTP on loopback (docs/reference.md, "Facebook"): Limited Login's
/// JWK Set and tokens, the Graph API's `debug_token`, `/me` (checking `appsecret_proof`) and
/// `DELETE /{user-id}/permissions`, and the OAuth dialog's token endpoint, as Facebook answers
/// them, errors included.
final class FakeFacebookServer: Sendable {
    static let appID = "1234567890"
    static let appSecret = "facebook-app-secret"
    static let version = "v23.0"

    /// A user access token Facebook issued, as `debug_token` describes it.
    struct AccessToken: Sendable {
        var userID: String
        var appID = FakeFacebookServer.appID
        var type = "USER"
        var isValid = true
        /// Seconds since 1970; 0 never expires.
        var expiresAt: Double = 0
        /// What `/me` answers as `id`, when it is not `userID` (a token the two calls disagree on).
        var meID: String?
    }

    /// How the Graph API answers.
    enum Mode: Sendable {
        case up
        /// Every call answers a Graph error with this code (4, 17, 32 and 613 are throttling).
        case graphError(Int)
        case serverError
        /// Answers after the issuer's 5 s deadline.
        case slow
        /// Answers 100 KiB, past the 64 KiB any remote answer may have.
        case huge
        /// Answers as something between the issuer and Facebook would: an HTML page with 200, or a
        /// proxy's 407 without a Graph error.
        case notGraph(status: Int)
    }

    struct State {
        var tokens: [String: AccessToken] = [:]
        var mode = Mode.up
        var debugTokenCalls = 0
        var meCalls = 0
        /// Every `appsecret_proof` and app token received, for the tests to compare.
        var proofs: [String] = []
        var appTokens: [String] = []
        /// User ids whose permissions were deleted.
        var removedPermissions: [String] = []
        /// What the permissions call answers: nil succeeds.
        var permissionsError: (status: Int, code: Int)?
        /// Codes the dialog gave, and what each was issued for.
        var codes: [String: (userID: String, challenge: String, redirectURI: String)] = [:]
        var tokenRequests: [[String: String]] = []
    }

    let keys: FakeAppleKeys
    let port: Int
    let state = Mutex(State())

    private init(keys: FakeAppleKeys, port: Int) {
        self.keys = keys
        self.port = port
    }

    var base: String { "http://127.0.0.1:\(port)" }

    /// The providers-file entry that points a `facebook` provider here.
    var entry: [String: any Sendable] {
        [
            "id": "facebook", "kind": "facebook", "app_id": Self.appID, "app_secret": Self.appSecret,
            "jwks_uri": base + "/jwks/", "graph_url": base, "authorization_endpoint": base + "/dialog/oauth",
        ]
    }

    /// Serves until `body` returns.
    static func with(clock: any WallClock, _ body: @escaping @Sendable (FakeFacebookServer) async throws -> Void) async throws {
        let keys = try FakeAppleKeys(clock: clock)
        let box = Mutex<FakeFacebookServer?>(nil)
        let router = Router()
        router.get("/jwks/") { _, _ -> Response in
            let server = box.withLock { $0! }
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: server.keys.jwksJSON)))
        }
        router.get("/\(version)/debug_token") { request, _ -> Response in
            try await box.withLock { $0! }.debugToken(request)
        }
        router.get("/\(version)/me") { request, _ -> Response in
            try await box.withLock { $0! }.me(request)
        }
        router.delete("/\(version)/:user/permissions") { request, context -> Response in
            try await box.withLock { $0! }.removePermissions(request, user: context.parameters.get("user") ?? "")
        }
        router.post("/\(version)/oauth/access_token") { request, _ -> Response in
            try await box.withLock { $0! }.token(request)
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            let server = FakeFacebookServer(keys: keys, port: client.port!)
            box.withLock { $0 = server }
            try await body(server)
        }
    }

    /// A Limited Login token (the iOS SDK's `AuthenticationToken`): the nonce claim is the hex
    /// SHA-256 of `nonce`, as the SDK puts it.
    func limitedLoginToken(
        subject: String, nonce: String? = "raw-nonce", issuer: String = "https://www.facebook.com", audience: String = FakeFacebookServer.appID,
        extra: [String: any Sendable] = [:]
    ) throws -> String {
        var overrides: [String: any Sendable] = [
            "iss": issuer, "email_verified": NSNull(), "is_private_email": NSNull(), "nonce_supported": NSNull(), "auth_time": NSNull(),
            "name": "Ada Lovelace", "given_name": "Ada", "family_name": "Lovelace", "jti": UUID().uuidString,
        ]
        for (key, value) in extra { overrides[key] = value }
        return try keys.identityToken(subject: subject, audience: audience, nonce: nonce, email: "ada@example.com", overrides: overrides)
    }

    /// A new access token of the classic login for `userID`.
    func accessToken(for userID: String, _ change: (inout AccessToken) -> Void = { _ in }) -> String {
        var token = AccessToken(userID: userID)
        change(&token)
        let text = "EAAfake" + UUID().uuidString.replacingOccurrences(of: "-", with: "")
        state.withLock { $0.tokens[text] = token }
        return text
    }

    /// What Facebook's dialog redirects with after the user approved, for the issuer's request.
    func issueCode(userID: String, for request: [String: String]) -> String {
        let code = "fb-code-" + UUID().uuidString
        state.withLock {
            $0.codes[code] = (userID, request["code_challenge"] ?? "", request["redirect_uri"] ?? "")
        }
        return code
    }

    static func appSecretProof(_ token: String) -> String {
        HMAC<SHA256>.authenticationCode(for: Data(token.utf8), using: SymmetricKey(data: Data(appSecret.utf8)))
            .map { String(format: "%02x", $0) }.joined()
    }

    /// The mode's answer when it is not `up`, after any delay.
    private func modeAnswer() async throws -> Response? {
        switch state.withLock({ $0.mode }) {
        case .up: return nil
        case .graphError(let code): return Self.graphError(code: code, status: .badRequest)
        case .serverError: return Response(status: .internalServerError)
        case .slow:
            try await Task.sleep(for: .seconds(7))
            return Self.json(["data": ["is_valid": true]])
        case .notGraph(let status):
            return Response(
                status: HTTPResponse.Status(code: status), headers: [.contentType: "text/html"],
                body: .init(byteBuffer: ByteBuffer(string: "<html><body>Sign in to the network</body></html>")))
        case .huge:
            return Self.json(["data": ["is_valid": true, "padding": String(repeating: "x", count: 100 * 1024)] as [String: Any]])
        }
    }

    private func debugToken(_ request: Request) async throws -> Response {
        state.withLock { $0.debugTokenCalls += 1 }
        if let answer = try await modeAnswer() { return answer }
        let query = request.uri.queryParameters
        let appToken = query["access_token"].map(String.init) ?? ""
        state.withLock { $0.appTokens.append(appToken) }
        guard appToken == Self.appID + "|" + Self.appSecret else { return Self.graphError(code: 190, status: .badRequest) }
        guard let input = query["input_token"].map(String.init), let token = state.withLock({ $0.tokens[input] }) else {
            return Self.json(["data": ["is_valid": false, "error": ["code": 190, "message": "Invalid OAuth access token."]]])
        }
        return Self.json(["data": [
            "app_id": token.appID, "type": token.type, "application": "Test app", "expires_at": token.expiresAt,
            "is_valid": token.isValid, "scopes": ["public_profile", "email"], "user_id": token.userID,
        ] as [String: Any]])
    }

    private func me(_ request: Request) async throws -> Response {
        state.withLock { $0.meCalls += 1 }
        if let answer = try await modeAnswer() { return answer }
        let query = request.uri.queryParameters
        let text = query["access_token"].map(String.init) ?? ""
        let proof = query["appsecret_proof"].map(String.init) ?? ""
        state.withLock { $0.proofs.append(proof) }
        guard proof == Self.appSecretProof(text) else { return Self.graphError(code: 100, status: .badRequest) }
        guard let token = state.withLock({ $0.tokens[text] }), token.isValid else { return Self.graphError(code: 190, status: .badRequest) }
        return Self.json([
            "id": token.meID ?? token.userID, "name": "Ada Lovelace", "first_name": "Ada", "last_name": "Lovelace", "email": "ada@example.com",
        ])
    }

    private func removePermissions(_ request: Request, user: String) async throws -> Response {
        if let answer = try await modeAnswer() { return answer }
        let appToken = request.uri.queryParameters["access_token"].map(String.init)
        guard appToken == Self.appID + "|" + Self.appSecret else { return Self.graphError(code: 190, status: .badRequest) }
        if let error = state.withLock({ $0.permissionsError }) {
            return Self.graphError(code: error.code, status: HTTPResponse.Status(code: error.status))
        }
        state.withLock { $0.removedPermissions.append(user) }
        return Self.json(["success": true])
    }

    private func token(_ request: Request) async throws -> Response {
        let body = try await request.body.collect(upTo: 64 * 1024)
        var form: [String: String] = [:]
        for pair in String(buffer: body).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? "" }
            form[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        let issued = state.withLock { state in
            state.tokenRequests.append(form)
            return form["code"].flatMap { state.codes.removeValue(forKey: $0) }
        }
        guard let issued, form["client_id"] == Self.appID, form["client_secret"] == Self.appSecret,
              form["redirect_uri"] == issued.redirectURI,
              let verifier = form["code_verifier"], PKCE.challenge(forVerifier: verifier) == issued.challenge
        else { return Self.graphError(code: 100, status: .badRequest) }
        return Self.json(["access_token": accessToken(for: issued.userID), "token_type": "bearer", "expires_in": 5_183_944])
    }

    static func graphError(code: Int, status: HTTPResponse.Status) -> Response {
        json(["error": ["message": "Graph error \(code)", "type": "OAuthException", "code": code, "fbtrace_id": "AbC"] as [String: Any]], status: status)
    }

    static func json(_ object: [String: Any], status: HTTPResponse.Status = .ok) -> Response {
        let data = try! JSONSerialization.data(withJSONObject: object)
        return Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
