/// A registered public client (RFC 6749 §2.1): no secret, bound to PKCE and to its exact
/// redirect URIs (RFC 8252 §8.4, RFC 9700 §2.1).
public struct OAuthClient: Sendable, Equatable, Codable {
    /// RFC 6749 §2.2 `client_id`: unique within the registry.
    public var clientID: String
    /// RFC 6749 §3.1.2: compared by exact string match.
    public var redirectURIs: [String]
    /// The scopes this client may ask for (RFC 6749 §3.3).
    public var scopes: [String]

    enum CodingKeys: String, CodingKey {
        case clientID = "client_id"
        case redirectURIs = "redirect_uris"
        case scopes
    }

    /// Unchecked; `ClientRegistry` validates clients as a set.
    public init(clientID: String, redirectURIs: [String], scopes: [String]) {
        self.clientID = clientID
        self.redirectURIs = redirectURIs
        self.scopes = scopes
    }
}
