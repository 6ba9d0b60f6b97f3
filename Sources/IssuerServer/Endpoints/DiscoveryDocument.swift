import Foundation
import IssuerCore

/// OpenID Connect Discovery 1.0 §3 / RFC 8414 §2 metadata, generated from the same configuration
/// and the same list of served endpoints that the router uses, so it never advertises something
/// the server refuses (SPEC §3.5).
struct DiscoveryDocument: Encodable {
    /// What this build of the server actually serves.
    struct Served {
        var appleExchange = false
        var tokenEndpoint = false
        var grantTypes: [String] = []
        var revocation = false
        var userinfo = false
        var authorization = false
    }

    let issuer: String
    let jwksURI: String
    let authorizationEndpoint: String?
    let tokenEndpoint: String?
    let revocationEndpoint: String?
    let userinfoEndpoint: String?
    let appleExchangeEndpoint: String?
    let grantTypesSupported: [String]
    let responseTypesSupported: [String]
    let responseModesSupported: [String]?
    let subjectTypesSupported = ["public"]
    let idTokenSigningAlgValuesSupported = ["RS256"]
    let tokenEndpointAuthMethodsSupported: [String]?
    let revocationEndpointAuthMethodsSupported: [String]?
    let codeChallengeMethodsSupported: [String]?
    let scopesSupported: [String]
    let claimsSupported = [
        "sub", "iss", "aud", "exp", "iat", "auth_time", "nonce", "at_hash", "sid",
        "email", "email_verified", "name", "given_name", "family_name",
    ]

    enum CodingKeys: String, CodingKey {
        case issuer
        case jwksURI = "jwks_uri"
        case authorizationEndpoint = "authorization_endpoint"
        case tokenEndpoint = "token_endpoint"
        case revocationEndpoint = "revocation_endpoint"
        case userinfoEndpoint = "userinfo_endpoint"
        case appleExchangeEndpoint = "apple_exchange_endpoint"
        case grantTypesSupported = "grant_types_supported"
        case responseTypesSupported = "response_types_supported"
        case responseModesSupported = "response_modes_supported"
        case subjectTypesSupported = "subject_types_supported"
        case idTokenSigningAlgValuesSupported = "id_token_signing_alg_values_supported"
        case tokenEndpointAuthMethodsSupported = "token_endpoint_auth_methods_supported"
        case revocationEndpointAuthMethodsSupported = "revocation_endpoint_auth_methods_supported"
        case codeChallengeMethodsSupported = "code_challenge_methods_supported"
        case scopesSupported = "scopes_supported"
        case claimsSupported = "claims_supported"
    }

    init(configuration: Configuration, served: Served) {
        // `issuer` is ISSUER_URL exactly; endpoint URLs hang off it without doubling a slash.
        issuer = configuration.issuerURL.absoluteString
        var base = issuer
        while base.hasSuffix("/") { base.removeLast() }
        jwksURI = base + "/oauth2/jwks.json"
        authorizationEndpoint = served.authorization ? base + "/oauth2/authorize" : nil
        tokenEndpoint = served.tokenEndpoint ? base + "/oauth2/token" : nil
        revocationEndpoint = served.revocation ? base + "/oauth2/revoke" : nil
        userinfoEndpoint = served.userinfo ? base + "/userinfo" : nil
        appleExchangeEndpoint = served.appleExchange ? base + "/auth/apple/exchange" : nil
        grantTypesSupported = served.grantTypes
        // Discovery requires the member; without the hosted flow there is no response type to
        // offer, and advertising "code" would promise an endpoint that does not exist.
        responseTypesSupported = served.authorization ? ["code"] : []
        responseModesSupported = served.authorization ? ["query"] : nil
        tokenEndpointAuthMethodsSupported = served.tokenEndpoint ? ["none"] : nil
        revocationEndpointAuthMethodsSupported = served.revocation ? ["none"] : nil
        codeChallengeMethodsSupported = served.authorization ? ["S256"] : nil
        var scopes: [String] = []
        for client in configuration.clients.clients {
            for scope in client.scopes where !scopes.contains(scope) { scopes.append(scope) }
        }
        scopesSupported = scopes
    }
}
