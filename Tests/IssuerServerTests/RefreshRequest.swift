import HummingbirdTesting
import TestSupport

/// The refresh grant's token request (docs/reference.md, "Refresh tokens and sessions";
/// RFC 6749, section 6), answered as it came: the tests assert on refusals as much as on tokens.
enum RefreshRequest {
    static func post(_ client: some TestClientProtocol, _ token: String, clientID: String = "clanboards-mobile", scope: String? = nil) async throws -> TestResponse {
        var fields = [("grant_type", "refresh_token"), ("refresh_token", token), ("client_id", clientID)]
        if let scope { fields.append(("scope", scope)) }
        return try await client.postForm("/oauth2/token", fields)
    }
}
