import Foundation
import IssuerCore
import JOSE
import Synchronization

/// Plays Apple's side of Sign in with Apple for tests: signing keys, the JWK Set that publishes
/// them, and identity tokens shaped like Apple's. The test controls what the "network" does
/// through `StubJWKSFetcher`, or serves `jwksJSON` over real HTTP.
public final class FakeAppleKeys: Sendable {
    public static let issuer = "https://appleid.apple.com"

    private let keys: Mutex<[(kid: String, key: RSAPrivateKey)]>
    /// "Now" for tokens minted without an explicit `issuedAt`: the clock of the application
    /// under test, so that a slow test run never turns a fresh token into one from the future.
    private let now: @Sendable () -> Date

    /// Starts with one key. Keys are expensive to make, so tests share these where they can.
    public init(clock: (any WallClock)? = nil) throws {
        if let clock {
            now = { clock.now }
        } else {
            now = { Date() }
        }
        let key = try RSAPrivateKey.generate(bits: 2048)
        keys = Mutex([(String("apple-\(key.publicKey.thumbprint.prefix(10))"), key)])
    }

    /// The kid of the key that signs new tokens.
    public var currentKid: String { keys.withLock { $0.last!.kid } }

    /// Adds a key that signs from now on; `keepOld` keeps publishing the previous ones.
    @discardableResult
    public func rotate(keepOld: Bool = true) throws -> String {
        let key = try RSAPrivateKey.generate(bits: 2048)
        let kid = "apple-\(key.publicKey.thumbprint.prefix(10))"
        keys.withLock { keys in
            if !keepOld { keys.removeAll() }
            keys.append((kid, key))
        }
        return kid
    }

    /// `{"keys": [...]}` as Apple publishes it (with `alg` and `use`).
    public var jwksJSON: Data {
        let jwks = JWKS(keys: keys.withLock { $0.map { $0.key.publicKey.jwk(kid: $0.kid) } })
        return try! JSONEncoder().encode(jwks)
    }

    /// The private key and kid currently signing (for hostile variants).
    public var currentKey: (kid: String, key: RSAPrivateKey) { keys.withLock { $0.last! } }

    /// An identity token as Apple would issue it. Any claim can be overridden or removed
    /// (`NSNull()` removes).
    public func identityToken(
        subject: String = "001234.abcdef.\(UUID().uuidString.prefix(8))",
        audience: String = "com.example.app",
        nonce: String? = nil,
        issuedAt: Date? = nil,
        lifetime: TimeInterval = 600,
        email: String? = "user@privaterelay.appleid.com",
        overrides: [String: any Sendable] = [:],
        header: [String: any Sendable]? = nil
    ) throws -> String {
        let issuedAt = issuedAt ?? now()
        var claims: [String: Any] = [
            "iss": Self.issuer, "aud": audience, "sub": subject,
            "iat": Int(issuedAt.timeIntervalSince1970), "exp": Int(issuedAt.timeIntervalSince1970 + lifetime),
            "auth_time": Int(issuedAt.timeIntervalSince1970), "nonce_supported": true,
        ]
        if let email {
            claims["email"] = email
            claims["email_verified"] = "true"
            claims["is_private_email"] = "true"
        }
        if let nonce { claims["nonce"] = Self.hashedNonce(nonce) }
        for (key, value) in overrides {
            if value is NSNull { claims.removeValue(forKey: key) } else { claims[key] = value }
        }
        let payload = try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])
        let (kid, key) = currentKey
        if let header {
            return try Self.sign(payload: payload, header: header, key: key)
        }
        return try JWS.sign(payload: payload, header: JWSHeader(alg: .rs256, typ: nil, kid: kid), key: key)
    }

    /// Signs with an arbitrary header (for `crit`, odd `typ`, missing `kid`).
    public static func sign(payload: Data, header: [String: any Sendable], key: RSAPrivateKey) throws -> String {
        let headerData = try JSONSerialization.data(withJSONObject: header, options: [.sortedKeys])
        return try TokenForge.signed(header: headerData, payload: payload, key: key)
    }

    /// Apple's recommended nonce form: lowercase hex SHA-256 of the raw nonce.
    public static func hashedNonce(_ raw: String) -> String {
        JOSEDigest.sha256(Data(raw.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}

/// An in-memory `JWKSFetcher` whose answers, failures and delays the test controls, and which
/// counts the fetches it saw.
public final class StubJWKSFetcher: JWKSFetcher {
    private struct State {
        var document: (@Sendable () -> JWKSDocument)?
        var failing = false
        var delay: Duration = .zero
        var fetches = 0
    }

    private let state = Mutex(State())

    public init(serving keys: FakeAppleKeys, maxAge: Int? = 3600) {
        state.withLock { $0.document = { JWKSDocument(body: keys.jwksJSON, maxAge: maxAge) } }
    }

    public init(body: Data, maxAge: Int? = 3600) {
        state.withLock { $0.document = { JWKSDocument(body: body, maxAge: maxAge) } }
    }

    public var fetchCount: Int { state.withLock { $0.fetches } }

    /// Makes every later fetch fail, as if Apple were unreachable.
    public func setFailing(_ failing: Bool) { state.withLock { $0.failing = failing } }

    /// Makes every later fetch take this long.
    public func setDelay(_ delay: Duration) { state.withLock { $0.delay = delay } }

    public func fetchJWKS(from url: URL) async throws -> JWKSDocument {
        let (delay, failing, document) = state.withLock { state in
            state.fetches += 1
            return (state.delay, state.failing, state.document)
        }
        if delay > .zero { try await Task.sleep(for: delay) }
        if failing { throw URLError(.cannotConnectToHost) }
        return document!()
    }
}
