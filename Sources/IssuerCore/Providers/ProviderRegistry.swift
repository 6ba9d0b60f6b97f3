import Foundation

/// The providers of `ISSUER_PROVIDERS_FILE` (docs/reference.md, "Configuration"), validated at
/// start: an unreadable file, an unknown kind or field, a duplicate or reserved `id`, an issuer
/// claimed twice or Apple's claimed at all, a non-`https` endpoint, or a provider that could sign
/// nobody in is a configuration error, named by entry and field.
public struct ProviderRegistry: Sendable, Equatable {
    /// Why a providers file was refused; phrased to follow the setting's name.
    public struct Problem: Error, CustomStringConvertible {
        public let description: String
    }

    /// In file order.
    public let providers: [ProviderSettings]

    public static let none = ProviderRegistry(uncheckedProviders: [])

    private init(uncheckedProviders: [ProviderSettings]) {
        providers = uncheckedProviders
    }

    /// The provider with this `id`.
    public func provider(id: String) -> ProviderSettings? {
        providers.first { $0.id == id }
    }

    /// The providers told when an account with their identity is deleted (docs/reference.md,
    /// "Account deletion"): Facebook's, whose permissions are removed.
    public var deletionNoticeProviders: [String] {
        providers.filter { $0.kind == .facebook }.map(\.id)
    }

    /// The provider whose tokens carry this `iss`.
    public func provider(issuer: String) -> ProviderSettings? {
        providers.first { $0.issuers.contains(issuer) }
    }

    /// Reads a JSON array of providers; a `client_secret_file` is read relative to the file.
    public init(contentsOf file: URL) throws {
        // Unknown fields are refused, not ignored: a misspelt `hosted_domain` would silently
        // admit every Google account.
        let entries: [(value: Entry, entry: ConfigurationJSON.Entry)]
        do throws(ConfigurationJSON.Problem) {
            entries = try ConfigurationJSON.decode(
                Entry.self, contentsOf: file, of: "provider", idMember: "id", known: Entry.CodingKeys.allNames, memberWord: "field")
        } catch {
            throw Problem(description: error.description)
        }
        var providers: [ProviderSettings] = []
        var labels: [String] = []
        for (entry, place) in entries {
            let provider = try Self.provider(entry, label: place.label, directory: file.deletingLastPathComponent())
            if let earlier = providers.firstIndex(where: { $0.id == provider.id }) {
                throw Problem(description: "\(place.label): the id is listed twice (also \(labels[earlier]))")
            }
            if let problem = Self.ambiguity(of: provider, among: providers, labels: labels) {
                throw Problem(description: "\(place.label): \(problem)")
            }
            providers.append(provider)
            labels.append(place.label)
        }
        self.providers = providers
    }

    /// One entry as written; every field optional here, required ones checked after.
    struct Entry: Decodable {
        var id: String?
        var kind: String?
        var issuer: String?
        var clientId: String?
        var clientSecret: String?
        var clientSecretFile: String?
        var nativeAudiences: [String]?
        var authorizedParties: [String]?
        var scopes: [String]?
        var hostedDomain: String?
        var linkByVerifiedEmail: Bool?
        var jwksUri: String?
        var authorizationEndpoint: String?
        var tokenEndpoint: String?
        var riscJwksUri: String?
        var appId: String?
        var appSecret: String?
        var appSecretFile: String?
        var graphUrl: String?
        var graphVersion: String?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case id
            case kind
            case issuer
            case clientId = "client_id"
            case clientSecret = "client_secret"
            case clientSecretFile = "client_secret_file"
            case nativeAudiences = "native_audiences"
            case authorizedParties = "authorized_parties"
            case scopes
            case hostedDomain = "hosted_domain"
            case linkByVerifiedEmail = "link_by_verified_email"
            case jwksUri = "jwks_uri"
            case authorizationEndpoint = "authorization_endpoint"
            case tokenEndpoint = "token_endpoint"
            case riscJwksUri = "risc_jwks_uri"
            case appId = "app_id"
            case appSecret = "app_secret"
            case appSecretFile = "app_secret_file"
            case graphUrl = "graph_url"
            case graphVersion = "graph_version"

            static let allNames = Set(allCases.map(\.rawValue))
            /// A `facebook` entry's own fields (docs/reference.md, "Facebook"); the rest are the other kinds'.
            static let facebookNames: Set<String> = [
                "id", "kind", "app_id", "app_secret", "app_secret_file", "jwks_uri", "graph_url", "graph_version",
                "authorization_endpoint", "token_endpoint",
            ]
            /// Only a `facebook` entry has these.
            static let facebookOnlyNames = facebookNames.subtracting(["id", "kind", "jwks_uri", "authorization_endpoint", "token_endpoint"])
        }

        /// The fields set in this entry, by their written names.
        var writtenNames: Set<String> {
            let values: [(CodingKeys, Any?)] = [
                (.issuer, issuer), (.clientId, clientId), (.clientSecret, clientSecret), (.clientSecretFile, clientSecretFile),
                (.nativeAudiences, nativeAudiences), (.authorizedParties, authorizedParties), (.scopes, scopes),
                (.hostedDomain, hostedDomain), (.linkByVerifiedEmail, linkByVerifiedEmail), (.jwksUri, jwksUri),
                (.authorizationEndpoint, authorizationEndpoint), (.tokenEndpoint, tokenEndpoint), (.riscJwksUri, riscJwksUri),
                (.appId, appId), (.appSecret, appSecret), (.appSecretFile, appSecretFile), (.graphUrl, graphUrl),
                (.graphVersion, graphVersion),
            ]
            return Set(values.compactMap { $0.1 == nil ? nil : $0.0.rawValue })
        }
    }

    /// `label` names the entry in every message (`entry 2 ('corp')`).
    private static func provider(_ entry: Entry, label owner: String, directory: URL) throws -> ProviderSettings {
        func nonEmpty(_ text: String?) -> String? { text.flatMap { $0.isEmpty ? nil : $0 } }
        let id = entry.id ?? ""
        guard !id.isEmpty, id.utf8.count <= 32, id.utf8.allSatisfy({ (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) }) else {
            throw Problem(description: "\(owner) needs an id of lowercase letters a-z (at most 32)")
        }
        guard id != IdentityProvider.apple.name else {
            throw Problem(description: "\(owner): the id '\(id)' is Sign in with Apple's own")
        }
        guard let kindText = entry.kind else {
            throw Problem(description: "\(owner) needs a kind (\"google\", \"oidc\" or \"facebook\")")
        }
        guard let kind = ProviderSettings.Kind(rawValue: kindText) else {
            throw Problem(description: "\(owner): the kind \(ConfigurationJSON.quoted(kindText)) is not one this issuer knows (\"google\", \"oidc\" or \"facebook\")")
        }
        if kind == .facebook {
            return try facebookProvider(entry, id: id, label: owner, directory: directory)
        }
        if let foreign = entry.writtenNames.intersection(Entry.CodingKeys.facebookOnlyNames).sorted().first {
            throw Problem(description: "\(owner): \(foreign) is a field of kind \"facebook\" only")
        }
        let issuer = nonEmpty(entry.issuer) ?? (kind == .google ? ProviderSettings.Google.issuer : nil)
        guard let issuer, let issuerURL = URL(string: issuer), issuerURL.isSecureOrLoopback else {
            throw Problem(description: "\(owner) needs an https issuer")
        }
        let clientSecret = try secret(
            entry.clientSecret, file: entry.clientSecretFile, names: ("client_secret", "client_secret_file"), label: owner,
            directory: directory)
        func url(_ text: String?, _ name: String, google: URL) throws -> URL? {
            guard let text = nonEmpty(text) else { return kind == .google ? google : nil }
            guard let url = URL(string: text), url.isSecureOrLoopback else {
                throw Problem(description: "\(owner): \(name) must be an https URL (plain http only to a loopback address)")
            }
            return url
        }
        for (name, list) in [("native_audiences", entry.nativeAudiences), ("authorized_parties", entry.authorizedParties), ("scopes", entry.scopes)] {
            if let list, list.contains(where: \.isEmpty) { throw Problem(description: "\(owner): \(name) has an empty entry") }
        }
        let settings = ProviderSettings(
            id: id, kind: kind, issuer: issuer, clientID: nonEmpty(entry.clientId), clientSecret: clientSecret.map(Secret.init),
            nativeAudiences: entry.nativeAudiences ?? [], authorizedParties: entry.authorizedParties ?? [],
            scopes: entry.scopes ?? ["openid", "email", "profile"], hostedDomain: nonEmpty(entry.hostedDomain),
            linkByVerifiedEmail: entry.linkByVerifiedEmail ?? false,
            jwksURI: try url(entry.jwksUri, "jwks_uri", google: ProviderSettings.Google.jwksURI),
            authorizationEndpoint: try url(entry.authorizationEndpoint, "authorization_endpoint", google: ProviderSettings.Google.authorizationEndpoint),
            tokenEndpoint: try url(entry.tokenEndpoint, "token_endpoint", google: ProviderSettings.Google.tokenEndpoint),
            riscJWKSURI: try url(entry.riscJwksUri, "risc_jwks_uri", google: ProviderSettings.Google.riscJWKSURI))
        guard !settings.nativeAudiences.isEmpty || settings.servesHostedFlow else {
            throw Problem(description: "\(owner) has neither native_audiences nor a client_id with a client secret: it could sign nobody in")
        }
        if settings.clientSecret != nil, settings.clientID == nil {
            throw Problem(description: "\(owner) has a client secret but no client_id")
        }
        guard settings.scopes.contains("openid") else { throw Problem(description: "\(owner): scopes must include openid") }
        return settings
    }

    /// A secret written inline or in a file (read relative to the providers file, one final
    /// newline dropped); nil when neither is set or it is empty.
    static func secret(_ inline: String?, file: String?, names: (inline: String, file: String), label owner: String, directory: URL) throws -> String? {
        if inline != nil, file != nil {
            throw Problem(description: "\(owner) sets both \(names.inline) and \(names.file)")
        }
        guard let file, !file.isEmpty else { return inline.flatMap { $0.isEmpty ? nil : $0 } }
        guard var text = try? String(contentsOf: URL(fileURLWithPath: file, relativeTo: directory), encoding: .utf8) else {
            throw Problem(description: "\(owner): \(names.file) cannot be read")
        }
        if text.hasSuffix("\n") { text.removeLast() }
        return text.isEmpty ? nil : text
    }
}
