import Foundation
import JOSE

/// The native exchange of every configured provider, Apple's included (docs/reference.md,
/// "Native sign-in" and "Google and other OpenID providers"): found by the provider's name for
/// `/auth/{provider}/exchange`, or by a token's `iss` for the RFC 8693 grant.
public struct ProviderExchanges: Sendable {
    /// One per configured provider, Apple's among them.
    public let all: [IdentityExchange]

    public init(_ exchanges: [IdentityExchange]) {
        all = exchanges
    }

    /// The exchange of the provider called `name`, nil when none is configured.
    public func exchange(named name: String) -> IdentityExchange? {
        all.first { $0.provider.name == name }
    }

    /// The exchange for an identity token, chosen by its `iss` before anything is verified (the
    /// chosen provider's verifier then checks everything, `iss` included); nil for a token whose
    /// `iss` no provider has, or that cannot be read: no provider's keys are fetched for it.
    public func exchange(forToken token: String) -> IdentityExchange? {
        guard token.utf8.count <= IdentityTokenVerifier.maximumTokenLength,
              let issuer = Self.unverifiedIssuer(token) else { return nil }
        return all.first { $0.provider.issuers.contains(issuer) }
    }

    /// The `iss` of a compact JWS's payload, unverified: only a hint for choosing a verifier.
    static func unverifiedIssuer(_ token: String) -> String? {
        let segments = token.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard segments.count == 3, let payload = Base64URL.decode(utf8: segments[1]),
              let object = try? JSONSerialization.jsonObject(with: payload) as? [String: Any]
        else { return nil }
        return object["iss"] as? String
    }
}
