import Foundation
import IssuerCore

/// OpenID Connect Discovery 1.0 §3 / RFC 8414 §2 metadata, generated from the same configuration
/// and the same list of served endpoints that the router uses, so it never advertises something
/// the server refuses (docs/reference.md, "Discovery").
struct DiscoveryDocument: Encodable {
    /// The members encoded by name; `providerExchangeEndpoints` adds one member per provider.
    let members: Members
    /// docs/reference.md, "Discovery": `{provider}_exchange_endpoint` for each configured provider.
    let providerExchangeEndpoints: [String: String]

    func encode(to encoder: any Encoder) throws {
        try members.encode(to: encoder)
        var container = encoder.container(keyedBy: MemberName.self)
        for (name, url) in providerExchangeEndpoints.sorted(by: { $0.key < $1.key }) {
            try container.encode(url, forKey: MemberName(stringValue: name))
        }
    }

    private struct MemberName: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(configuration: Configuration, served: [Route], grantTypes: [String]) {
        members = Members(configuration: configuration, served: served, grantTypes: grantTypes)
        var base = members.issuer
        while base.hasSuffix("/") { base.removeLast() }
        var endpoints: [String: String] = [:]
        if served.contains(.providerExchange) {
            for provider in configuration.providers.providers where !provider.nativeAudiences.isEmpty {
                endpoints["\(provider.id)_exchange_endpoint"] = base + "/auth/\(provider.id)/exchange"
            }
        }
        providerExchangeEndpoints = endpoints
    }
}

extension DiscoveryDocument {
    /// The fixed members.
    struct Members: Encodable {
    let issuer: String
    let jwksURI: String
    let authorizationEndpoint: String?
    let tokenEndpoint: String?
    let revocationEndpoint: String?
    let userinfoEndpoint: String?
    let endSessionEndpoint: String?
    let appleExchangeEndpoint: String?
    let grantTypesSupported: [String]
    let responseTypesSupported: [String]
    let responseModesSupported: [String]?
    let subjectTypesSupported = ["public"]
    let idTokenSigningAlgValuesSupported = ["RS256"]
    let tokenEndpointAuthMethodsSupported: [String]?
    let revocationEndpointAuthMethodsSupported: [String]?
    let codeChallengeMethodsSupported: [String]?
    /// RFC 9449 §5.1: the algorithms a DPoP proof may use (docs/reference.md, "DPoP").
    let dpopSigningAlgValuesSupported: [String]?
    /// RFC 9207 §3: every authorization response carries `iss`.
    let authorizationResponseIssParameterSupported: Bool?
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
        case endSessionEndpoint = "end_session_endpoint"
        case appleExchangeEndpoint = "apple_exchange_endpoint"
        case grantTypesSupported = "grant_types_supported"
        case responseTypesSupported = "response_types_supported"
        case responseModesSupported = "response_modes_supported"
        case subjectTypesSupported = "subject_types_supported"
        case idTokenSigningAlgValuesSupported = "id_token_signing_alg_values_supported"
        case tokenEndpointAuthMethodsSupported = "token_endpoint_auth_methods_supported"
        case revocationEndpointAuthMethodsSupported = "revocation_endpoint_auth_methods_supported"
        case codeChallengeMethodsSupported = "code_challenge_methods_supported"
        case dpopSigningAlgValuesSupported = "dpop_signing_alg_values_supported"
        case authorizationResponseIssParameterSupported = "authorization_response_iss_parameter_supported"
        case scopesSupported = "scopes_supported"
        case claimsSupported = "claims_supported"
    }

    /// - Parameters:
    ///   - served: the routes the router registered (`RouteRegistrar.served`); only those are
    ///     advertised, each at the discovery member the route table names.
    ///   - grantTypes: what the token endpoint dispatches on.
    init(configuration: Configuration, served: [Route], grantTypes: [String]) {
        // `issuer` is ISSUER_URL exactly; endpoint URLs hang off it without doubling a slash.
        issuer = configuration.issuerURL.absoluteString
        var base = issuer
        while base.hasSuffix("/") { base.removeLast() }
        let advertised = served.filter { $0.placement == .issuer && $0.discoveryMember != nil }
        let url: (String) -> String? = { member in
            advertised.first { $0.discoveryMember == member }.map { base + $0.path }
        }
        jwksURI = url("jwks_uri") ?? base + Route.jwks.path
        authorizationEndpoint = url("authorization_endpoint")
        tokenEndpoint = url("token_endpoint")
        revocationEndpoint = url("revocation_endpoint")
        userinfoEndpoint = url("userinfo_endpoint")
        endSessionEndpoint = url("end_session_endpoint")
        appleExchangeEndpoint = url("apple_exchange_endpoint")
        let hasToken = tokenEndpoint != nil
        let hasAuthorization = authorizationEndpoint != nil
        grantTypesSupported = hasToken ? grantTypes : []
        // Discovery requires the member; without the hosted flow there is no response type to
        // offer, and advertising "code" would promise an endpoint that does not exist.
        responseTypesSupported = hasAuthorization ? ["code"] : []
        responseModesSupported = hasAuthorization ? ["query"] : nil
        tokenEndpointAuthMethodsSupported = hasToken ? ["none"] : nil
        revocationEndpointAuthMethodsSupported = revocationEndpoint != nil ? ["none"] : nil
        codeChallengeMethodsSupported = hasAuthorization ? ["S256"] : nil
        dpopSigningAlgValuesSupported = hasToken ? DPoPProofVerifier.algorithms.map(\.rawValue) : nil
        authorizationResponseIssParameterSupported = hasAuthorization ? true : nil
        var scopes: [String] = []
        for client in configuration.clients.clients {
            for scope in client.scopes where !scopes.contains(scope) { scopes.append(scope) }
        }
        scopesSupported = scopes
    }
}
}
