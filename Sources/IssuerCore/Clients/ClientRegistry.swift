import Foundation

/// The clients of `ISSUER_CLIENTS_FILE` (docs/reference.md, "Configuration"), or the built-in default client.
public struct ClientRegistry: Sendable, Equatable {
    /// Why a clients file was refused.
    public struct Problem: Error, CustomStringConvertible {
        /// Phrased to follow the setting's name in the error line, e.g. `must list at least one client`.
        public let description: String
    }

    /// In file order; every `client_id` is unique.
    public let clients: [OAuthClient]

    /// docs/reference.md, "Configuration": one client `clanboards-mobile` when no file is configured.
    public static let `default` = ClientRegistry(uncheckedClients: [
        OAuthClient(
            clientID: "clanboards-mobile",
            redirectURIs: ["clanboards://oauthredirect"],
            postLogoutRedirectURIs: ["clanboards://signout"],
            scopes: ["openid", "email", "profile", "offline_access"]),
    ])

    /// The id a native sign-in that names no client signs in to, when it is registered.
    public static let defaultClientID = "clanboards-mobile"

    /// The client a request names when it names none (docs/reference.md, "Native sign-in"):
    /// `clanboards-mobile` when it is registered, else the first client of the file, so that a
    /// registry of other apps still has one.
    public var defaultClient: OAuthClient {
        clients.first { $0.clientID == Self.defaultClientID } ?? clients[0]
    }

    private init(uncheckedClients: [OAuthClient]) {
        self.clients = uncheckedClients
    }

    /// Validates a registry: non-empty, unique ids, absolute redirect URIs, non-empty scopes.
    public init(clients: [OAuthClient]) throws {
        guard !clients.isEmpty else { throw Problem(description: "must list at least one client") }
        var seen = Set<String>()
        for client in clients {
            guard !client.clientID.isEmpty else { throw Problem(description: "has a client with an empty client_id") }
            guard seen.insert(client.clientID).inserted else {
                throw Problem(description: "lists client_id '\(client.clientID)' twice")
            }
            guard !client.redirectURIs.isEmpty else {
                throw Problem(description: "client '\(client.clientID)' has no redirect_uris")
            }
            for uri in client.redirectURIs + client.postLogoutRedirectURIs {
                // RFC 6749 §3.1.2: absolute URI without a fragment.
                guard let components = URLComponents(string: uri), components.scheme != nil, components.fragment == nil else {
                    throw Problem(description: "client '\(client.clientID)' has an invalid redirect URI '\(uri)'")
                }
                // RFC 8252 §7.3, RFC 9700 §2.1: plain `http` only to a loopback address, where no
                // network sits between the browser and the app.
                if components.scheme?.lowercased() == "http", !URL.isLoopbackHost(components.host ?? "") {
                    throw Problem(description: "client '\(client.clientID)' has the redirect URI '\(uri)': http is allowed only to a loopback address (127.0.0.1, [::1], localhost); use https or a private-use scheme")
                }
            }
            // docs/reference.md, "Configuration": a sign-out URI never receives a code, so no URI may be in both lists.
            if let shared = client.redirectURIs.first(where: client.postLogoutRedirectURIs.contains) {
                throw Problem(description: "client '\(client.clientID)' lists '\(shared)' as both a redirect URI and a post-logout redirect URI")
            }
            if let audiences = client.appleAudiences, audiences.isEmpty || audiences.contains(where: \.isEmpty) {
                throw Problem(description: "client '\(client.clientID)' has an empty apple_audiences entry or list")
            }
            // docs/reference.md, "Browser clients": each an exact origin, as a browser sends it.
            for origin in client.allowedOrigins {
                if let problem = WebOrigin.problem(in: origin) {
                    throw Problem(description: "client '\(client.clientID)' has the allowed origin '\(origin)': \(problem)")
                }
            }
            guard !client.scopes.isEmpty, !client.scopes.contains(where: { $0.isEmpty || $0.contains(" ") }) else {
                throw Problem(description: "client '\(client.clientID)' needs a non-empty list of scopes")
            }
            if let name = client.clientName,
               name.trimmingCharacters(in: .whitespaces).isEmpty || name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                throw Problem(description: "client '\(client.clientID)' has a client_name that is empty or holds a control character")
            }
            // docs/reference.md, "The pages people see": a file of ISSUER_PAGES_DIR, which
            // `Configuration` then reads; here only its name, which must stay inside that directory.
            if let logo = client.logo, let problem = PageImage.nameProblem(logo) {
                throw Problem(description: "client '\(client.clientID)' has the logo \(ConfigurationJSON.quoted(logo)), which \(problem)")
            }
        }
        self.clients = clients
    }

    /// Reads a JSON array of clients. A member the registry does not know is refused, not ignored:
    /// `apple_audience` for `apple_audiences` would otherwise leave the client free to use every
    /// Apple audience (docs/reference.md, "Configuration").
    public init(contentsOf file: URL) throws {
        let clients: [OAuthClient]
        do throws(ConfigurationJSON.Problem) {
            clients = try ConfigurationJSON.decode(
                OAuthClient.self, contentsOf: file, of: "client", idMember: "client_id", known: OAuthClient.CodingKeys.allNames,
                memberWord: "member"
            ).map(\.value)
        } catch {
            throw Problem(description: error.description)
        }
        try self.init(clients: clients)
    }

    /// Every client's `allowed_origins` together: an origin listed by any client gets CORS on the
    /// endpoints browsers call (docs/reference.md, "Browser clients").
    public var allowedOrigins: Set<String> {
        Set(clients.flatMap(\.allowedOrigins))
    }

    /// The client with this id.
    public func client(id: String) -> OAuthClient? {
        clients.first { $0.clientID == id }
    }
}
