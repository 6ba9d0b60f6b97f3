import Foundation

/// An OpenID provider whose ID tokens we accept as proof of sign-in: configuration, not code.
/// Apple is the first; Google would be another value of this type.
public struct IdentityProvider: Sendable, Equatable {
    /// Our name for it, stored with each identity (`apple`).
    public var name: String
    /// The exact `iss` of its tokens (OIDC Core §3.1.3.7 step 2).
    public var issuer: String
    /// Its `jwks_uri`.
    public var jwksURL: URL

    /// Any OpenID provider; `apple(jwksURL:)` builds Apple's.
    public init(name: String, issuer: String, jwksURL: URL) {
        self.name = name
        self.issuer = issuer
        self.jwksURL = jwksURL
    }

    /// Sign in with Apple, its keys at `jwksURL` (`ISSUER_APPLE_JWKS_URL`).
    public static func apple(jwksURL: URL) -> IdentityProvider {
        IdentityProvider(name: "apple", issuer: "https://appleid.apple.com", jwksURL: jwksURL)
    }
}
