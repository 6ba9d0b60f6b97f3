import Crypto
import Foundation
import JOSE

/// What travels through the provider (Apple, Google, …) as the `state` of the hosted flow
/// (docs/reference.md, "Hosted sign-in"): the client's request, the provider it was sent to, the
/// nonce we gave the provider, the PKCE verifier of our own code request to it, and an expiry, sealed with AES-GCM under the server
/// secret's `hosted-flow-state` subkey. Sealed, not stored: any process of the fleet opens it
/// (they share the secret), nothing is written before the user comes back, and neither the
/// browser nor Apple can read or alter it.
public struct AuthorizationState: Codable, Sendable, Equatable {
    /// docs/reference.md, "Hosted sign-in": a state is good for 10 minutes.
    public static let lifetime: Duration = .seconds(600)

    /// The client's request, validated.
    public var request: AuthorizationRequest
    /// The provider (`apple` or a provider's `id`) the browser was sent to with this state: only
    /// that provider's callback accepts it, so its code and our PKCE verifier never go to another
    /// provider's token endpoint (RFC 9700 §4.4.2, a mix-up defence). The chooser's states differ
    /// only here, so they share one single-use key (`HostedSignIn`'s state hash).
    public var provider: String
    /// The raw nonce whose SHA-256 was sent to the provider; its ID token must carry that hash.
    public var providerNonce: String
    /// RFC 7636 `code_verifier` of the issuer's own code request to a provider other than Apple
    /// (whose `form_post` answer needs none); nil in a state sealed before providers existed.
    public var providerVerifier: String?
    /// Seconds since 1970 after which the state is refused.
    public var expiresAt: Int

    enum CodingKeys: String, CodingKey {
        case request = "q"
        case provider = "p"
        case providerNonce = "an"
        case providerVerifier = "pv"
        case expiresAt = "x"
    }

    /// A new state for `request` sent to `provider`, expiring `lifetime` after `now`, with a fresh
    /// nonce and verifier.
    public init(request: AuthorizationRequest, provider: String, now: Date) {
        self.request = request
        self.provider = provider
        self.providerNonce = Self.random256()
        self.providerVerifier = Self.random256()
        self.expiresAt = Int(now.addingTimeInterval(Self.lifetime.timeInterval).timeIntervalSince1970)
    }

    /// The same state (its nonce, verifier and expiry, so the same single-use key) sent to
    /// `provider` instead: one per link of the chooser page.
    public func sent(to provider: String) -> AuthorizationState {
        var state = self
        state.provider = provider
        return state
    }

    /// 256 random bits, base64url (43 characters: a valid RFC 7636 verifier too).
    private static func random256() -> String {
        var generator = SystemRandomNumberGenerator()
        var words = (generator.next() as UInt64, generator.next() as UInt64, generator.next() as UInt64, generator.next() as UInt64)
        return withUnsafeBytes(of: &words) { Base64URL.encode($0) }
    }
}

/// Seals and opens `AuthorizationState` values (docs/reference.md, "Hosted sign-in").
public struct AuthorizationStateSealer: Sendable {
    /// Why a state was refused; none of it is shown to the browser beyond "invalid or expired".
    public enum Failure: Error, Equatable {
        case malformed
        case forged
        case expired
    }

    private let key: [UInt8]
    private let clock: any WallClock
    /// States longer than this are refused unread (a browser form field; ours are ~400 bytes).
    public static let maximumLength = 4096

    /// - Parameter secret: the server secret; the key is its `hosted-flow-state` subkey.
    public init(secret: ServerSecret, clock: any WallClock) {
        self.key = secret.key(for: "hosted-flow-state").withUnsafeBytes { Array($0) }
        self.clock = clock
    }

    /// The sealed, base64url text of `state`.
    public func seal(_ state: AuthorizationState) -> String {
        // Encoding a struct of strings and integers cannot fail; sealing with a valid key neither.
        let plaintext = (try? JSONEncoder().encode(state)) ?? Data()
        let box = try? AES.GCM.seal(plaintext, using: SymmetricKey(data: key), authenticating: Self.context)
        return Base64URL.encode(box?.combined ?? Data())
    }

    /// Opens a sealed state: refused when it was not sealed by this fleet, was altered, or has
    /// expired.
    public func open(_ text: String) throws(Failure) -> AuthorizationState {
        guard text.utf8.count <= Self.maximumLength, let combined = Base64URL.decode(text) else { throw .malformed }
        let plaintext: Data
        do {
            let box = try AES.GCM.SealedBox(combined: combined)
            plaintext = try AES.GCM.open(box, using: SymmetricKey(data: key), authenticating: Self.context)
        } catch {
            throw .forged
        }
        guard let state = try? JSONDecoder().decode(AuthorizationState.self, from: plaintext) else { throw .malformed }
        guard TimeInterval(state.expiresAt) > clock.now.timeIntervalSince1970 else { throw .expired }
        return state
    }

    /// Binds the ciphertext to its purpose, so no other sealed value of ours passes as a state.
    private static let context = Data("issuer hosted-flow state v1".utf8)
}
