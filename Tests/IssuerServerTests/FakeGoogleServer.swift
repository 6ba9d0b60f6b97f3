import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IssuerCore
import JOSE
import JWTKit
import Synchronization
import TestSupport

/// Plays an OpenID provider over real HTTP on loopback: its discovery document, its JWK Set, and
/// ID tokens signed by its key, shaped like Google's (`azp`, `hd`, `email_verified`). As `oidc`
/// its issuer is its own loopback URL; as `google`, tokens say `https://accounts.google.com` and
/// the providers file points `jwks_uri` here.
final class FakeGoogleServer: Sendable {
    struct State {
        var discoveryFetches = 0
        var jwksFetches = 0
        /// Codes the "user" got by signing in, and what each was issued for.
        var codes: [String: IssuedCode] = [:]
        /// Every form the token endpoint received, for tests to inspect.
        var tokenRequests: [[String: String]] = []
        /// Fetches of the RISC key set, and whether it answers 500 as if Google were down.
        var riscJWKSFetches = 0
        var riscFailing = false
        /// Whether its discovery document says its authorization responses carry `iss` (RFC 9207 §3).
        var issParameterSupported = false
    }

    /// What a code was issued for, as the provider remembers it.
    struct IssuedCode {
        var subject: String
        var nonce: String
        var challenge: String
        var clientID: String
        var redirectURI: String
        /// The ID token's `aud` when it is not `clientID` (a token minted for someone else).
        var audience: String?
    }

    static let clientSecret = "google-client-secret"

    let keys: FakeAppleKeys
    /// An ES256 key beside the RSA ones, signed with by jwt-kit (an implementation not ours).
    let ecKey = ES256PrivateKey()
    static let ecKid = "ec-1"
    let port: Int
    let state = Mutex(State())

    /// The Android and web client ids of the tests' Google project.
    static let webClientID = "123-web.apps.googleusercontent.com"
    static let androidClientID = "123-android.apps.googleusercontent.com"

    private init(keys: FakeAppleKeys, port: Int) {
        self.keys = keys
        self.port = port
    }

    /// Its own issuer, as an `oidc` provider.
    var issuer: String { "http://127.0.0.1:\(port)" }
    var jwksURI: String { issuer + "/oauth2/v3/certs" }
    /// Where the keys that sign security event tokens are published (Google's risc-configuration
    /// `jwks_uri`): the same keys as the ID tokens', at a path of its own so its fetches are told apart.
    var riscJWKSURI: String { issuer + "/risc/certs" }

    /// Serves until `body` returns.
    static func with(clock: any WallClock, _ body: @escaping @Sendable (FakeGoogleServer) async throws -> Void) async throws {
        let keys = try FakeAppleKeys(clock: clock)
        let box = Mutex<FakeGoogleServer?>(nil)
        let router = Router()
        router.get("/.well-known/openid-configuration") { _, _ -> Response in
            let server = box.withLock { $0! }
            let issParameterSupported = server.state.withLock { state in
                state.discoveryFetches += 1
                return state.issParameterSupported
            }
            var document: [String: Any] = [
                "issuer": server.issuer, "jwks_uri": server.jwksURI,
                "authorization_endpoint": server.issuer + "/o/oauth2/v2/auth", "token_endpoint": server.issuer + "/token",
            ]
            if issParameterSupported { document["authorization_response_iss_parameter_supported"] = true }
            let body = try JSONSerialization.data(withJSONObject: document)
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: body)))
        }
        router.get("/oauth2/v3/certs") { _, _ -> Response in
            let server = box.withLock { $0! }
            server.state.withLock { $0.jwksFetches += 1 }
            return Response(status: .ok, headers: [.contentType: "application/json", .cacheControl: "public, max-age=3600"],
                            body: .init(byteBuffer: ByteBuffer(bytes: server.jwksJSON)))
        }
        router.get("/risc/certs") { _, _ -> Response in
            let server = box.withLock { $0! }
            let failing = server.state.withLock { state in
                state.riscJWKSFetches += 1
                return state.riscFailing
            }
            guard !failing else { return Response(status: .internalServerError) }
            return Response(status: .ok, headers: [.contentType: "application/json", .cacheControl: "public, max-age=3600"],
                            body: .init(byteBuffer: ByteBuffer(bytes: server.jwksJSON)))
        }
        router.post("/token") { request, _ -> Response in
            let server = box.withLock { $0! }
            return try await server.token(request)
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            let server = FakeGoogleServer(keys: keys, port: client.port!)
            box.withLock { $0 = server }
            try await body(server)
        }
    }

    /// An ID token as Credential Manager hands an Android app: `aud` the web client id, `azp` the
    /// Android one.
    func idToken(
        subject: String, issuer: String = "https://accounts.google.com", audience: String = FakeGoogleServer.webClientID,
        azp: String? = FakeGoogleServer.androidClientID, nonce: String? = nil, extra: [String: any Sendable] = [:]
    ) throws -> String {
        var overrides: [String: any Sendable] = ["iss": issuer, "email_verified": true, "nonce_supported": NSNull(), "is_private_email": NSNull()]
        overrides["azp"] = azp ?? NSNull()
        for (key, value) in extra { overrides[key] = value }
        return try keys.identityToken(subject: subject, audience: audience, nonce: nonce, email: "someone@gmail.com", overrides: overrides)
    }

    /// Google's RISC event type URI for `name` (`sessions-revoked`, `account-disabled`, ...).
    static func riscEventType(_ name: String) -> String {
        "https://schemas.openid.net/secevent/risc/event-type/" + name
    }

    /// A security event token as Google's Cross-Account Protection sends it (RFC 8417): `iss`
    /// `https://accounts.google.com/`, `aud` the web client id, `iat` now, a fresh `jti`, and one
    /// event of `type` (a full URI, or a RISC event name) about `subject` (none when nil).
    /// `event` adds members to the event (`reason`, `state`); `claims` overrides or (with NSNull)
    /// removes claims; `key` signs instead of Google's key.
    func securityEventToken(
        type: String, subject: String?, event: [String: any Sendable] = [:], jti: String = UUID().uuidString,
        issuedAt: Date, claims: [String: any Sendable] = [:], key: RSAPrivateKey? = nil, header: [String: any Sendable]? = nil
    ) throws -> String {
        var body: [String: Any] = [:]
        if let subject {
            body["subject"] = ["subject_type": "iss-sub", "iss": "https://accounts.google.com/", "sub": subject]
        }
        for (name, value) in event { body[name] = value }
        var payload: [String: Any] = [
            "iss": "https://accounts.google.com/", "aud": Self.webClientID, "iat": Int(issuedAt.timeIntervalSince1970), "jti": jti,
            "events": [type.hasPrefix("https://") ? type : Self.riscEventType(type): body],
        ]
        for (name, value) in claims {
            if value is NSNull { payload.removeValue(forKey: name) } else { payload[name] = value }
        }
        let (kid, googleKey) = keys.currentKey
        return try FakeAppleKeys.sign(
            payload: try JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys]),
            header: header ?? ["alg": "RS256", "kid": kid, "typ": "secevent+jwt"], key: key ?? googleKey)
    }

    /// The RSA keys and the P-256 one, as a provider that signs with both publishes them.
    var jwksJSON: Data {
        var set = (try? JSONSerialization.jsonObject(with: keys.jwksJSON) as? [String: Any]) ?? [:]
        let (x, y) = ecKey.publicKey.parameters!
        set["keys"] = ((set["keys"] as? [Any]) ?? []) + [[
            "kty": "EC", "crv": "P-256", "x": x, "y": y, "kid": Self.ecKid, "alg": "ES256", "use": "sig",
        ]]
        return try! JSONSerialization.data(withJSONObject: set)
    }

    /// The claims of an ES256 ID token.
    struct ECClaims: JWTPayload {
        var iss: String
        var sub: String
        var aud: String
        var exp: Int
        var iat: Int
        var email: String

        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    /// An ID token signed with ES256 by jwt-kit.
    func es256IDToken(subject: String, audience: String, now: Date) async throws -> String {
        let keys = JWTKeyCollection()
        await keys.add(ecdsa: ecKey, kid: JWKIdentifier(string: Self.ecKid))
        return try await keys.sign(
            ECClaims(iss: issuer, sub: subject, aud: audience, exp: Int(now.timeIntervalSince1970) + 600,
                     iat: Int(now.timeIntervalSince1970), email: "ec@example.com"),
            kid: JWKIdentifier(string: Self.ecKid))
    }

    /// The user signs in at the provider, which sends the browser back with a code for the
    /// request the issuer made (its query: `nonce`, `code_challenge`, `client_id`, `redirect_uri`).
    /// A code for `request`, whose ID token carries the request's nonce and client, unless `nonce`
    /// or `audience` say otherwise (an answer the issuer must refuse).
    func issueCode(subject: String, for request: [String: String], nonce: String? = nil, audience: String? = nil) -> String {
        let code = "g-code-" + UUID().uuidString
        state.withLock {
            $0.codes[code] = IssuedCode(
                subject: subject, nonce: nonce ?? request["nonce"] ?? "", challenge: request["code_challenge"] ?? "",
                clientID: request["client_id"] ?? "", redirectURI: request["redirect_uri"] ?? "", audience: audience)
        }
        return code
    }

    /// RFC 6749 §4.1.3 with RFC 7636 §4.6 and `client_secret_post`, as Google's token endpoint checks them.
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
        guard let issued, form["grant_type"] == "authorization_code", form["client_id"] == issued.clientID,
              form["client_secret"] == Self.clientSecret, form["redirect_uri"] == issued.redirectURI,
              let verifier = form["code_verifier"], PKCE.challenge(forVerifier: verifier) == issued.challenge
        else { return Self.json(["error": "invalid_grant"], status: .badRequest) }
        return Self.json([
            "access_token": "ya29.provider-access", "token_type": "Bearer", "expires_in": "3599",
            "refresh_token": "1//provider-refresh",
            "id_token": try idToken(subject: issued.subject, issuer: issuer, audience: issued.audience ?? issued.clientID, azp: issued.audience ?? issued.clientID,
                                    extra: ["nonce": issued.nonce]),
        ])
    }

    /// A providers file with one provider built from `entry`.
    static func providersFile(_ entries: [[String: Any]]) throws -> URL {
        let file = TestDirectories.make("providers.json")
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try JSONSerialization.data(withJSONObject: entries).write(to: file)
        return file
    }

    private static func json(_ object: [String: String], status: HTTPResponse.Status = .ok) -> Response {
        let data = try! JSONSerialization.data(withJSONObject: object)
        return Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
