/// RFC 6749 §3.3 scope handling against a client's allowed scopes.
public enum ScopeRequest {
    /// docs/reference.md, "Native sign-in": what a sign-in gets when it names no scope, as far as the client allows it.
    public static let defaultScopes = ["openid", "email", "profile"]
    /// OIDC Core §11: asks for a refresh token. Every sign-in here gets one, so it is accepted from
    /// every client and changes nothing (docs/reference.md, "Hosted sign-in"); clients built on AppAuth send it by habit.
    public static let offlineAccess = "offline_access"

    /// The scopes granted for `requested` (space-delimited), or `invalid_scope` if any is not
    /// allowed for the client. Order follows the request; duplicates are dropped.
    public static func resolve(_ requested: String?, for client: OAuthClient) throws(OAuthError) -> [String] {
        guard let requested else {
            return defaultScopes.filter(client.scopes.contains)
        }
        var scopes: [String] = []
        for scope in requested.split(separator: " ").map(String.init) where !scopes.contains(scope) {
            guard client.scopes.contains(scope) || scope == offlineAccess else {
                throw .invalidScope("The scope \(scope) is not allowed for this client.")
            }
            scopes.append(scope)
        }
        guard !scopes.isEmpty else { throw .invalidScope("The scope parameter is empty.") }
        return scopes
    }
}
