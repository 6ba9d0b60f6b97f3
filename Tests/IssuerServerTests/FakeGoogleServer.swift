import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IssuerCore
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
    }

    let keys: FakeAppleKeys
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

    /// Serves until `body` returns.
    static func with(clock: any WallClock, _ body: @escaping @Sendable (FakeGoogleServer) async throws -> Void) async throws {
        let keys = try FakeAppleKeys(clock: clock)
        let box = Mutex<FakeGoogleServer?>(nil)
        let router = Router()
        router.get("/.well-known/openid-configuration") { _, _ -> Response in
            let server = box.withLock { $0! }
            server.state.withLock { $0.discoveryFetches += 1 }
            return Self.json([
                "issuer": server.issuer, "jwks_uri": server.jwksURI,
                "authorization_endpoint": server.issuer + "/o/oauth2/v2/auth", "token_endpoint": server.issuer + "/token",
            ])
        }
        router.get("/oauth2/v3/certs") { _, _ -> Response in
            let server = box.withLock { $0! }
            server.state.withLock { $0.jwksFetches += 1 }
            return Response(status: .ok, headers: [.contentType: "application/json", .cacheControl: "public, max-age=3600"],
                            body: .init(byteBuffer: ByteBuffer(bytes: server.keys.jwksJSON)))
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

    /// A providers file with one provider built from `entry`.
    static func providersFile(_ entries: [[String: Any]]) throws -> URL {
        let file = TestDirectories.make("providers.json")
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try JSONSerialization.data(withJSONObject: entries).write(to: file)
        return file
    }

    private static func json(_ object: [String: String]) -> Response {
        let data = try! JSONSerialization.data(withJSONObject: object)
        return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
