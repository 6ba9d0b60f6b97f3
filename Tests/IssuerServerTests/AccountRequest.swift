import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import IssuerServer
import IssuerCore
import TestSupport

/// A request to the account endpoints (docs/reference.md, "Signed-in devices" and "Linked
/// identities") with a session's tokens: the access token as the bearer and, where the endpoint
/// wants the second proof, the refresh token in a form body; and what its answers list.
enum AccountRequest {
    /// `method` on `path` with `tokens`' bearer and, unless `withRefresh` is false, its refresh token.
    static func send(
        _ client: some TestClientProtocol, _ method: HTTPRequest.Method, _ path: String, _ tokens: [String: Any]?, withRefresh: Bool = true
    ) async throws -> TestResponse {
        var headers: HTTPFields = [:]
        if let access = tokens?["access_token"] as? String { headers[.authorization] = "Bearer \(access)" }
        var body: ByteBuffer?
        if withRefresh, let refresh = tokens?["refresh_token"] as? String {
            headers[.contentType] = "application/x-www-form-urlencoded"
            body = ByteBuffer(string: "refresh_token=\(refresh)")
        }
        return try await client.executeRequest(uri: path, method: method, headers: headers, body: body)
    }

    /// The sessions an `/account/sessions` answer lists, each with whether it is the caller's own.
    static func sessionIDs(_ response: TestResponse) -> [String: Bool] {
        let sessions = (response.json["sessions"] as? [[String: Any]]) ?? []
        return Dictionary(uniqueKeysWithValues: sessions.compactMap { session in
            (session["sid"] as? String).map { ($0, session["current"] as? Bool ?? false) }
        })
    }

    /// The session `tokens` belong to, as the account API names it.
    static func sessionID(_ fixture: IssuerTestFixture, _ tokens: [String: Any]) throws -> String {
        let claims = try AccessTokenVerifier(configuration: fixture.configuration, clock: fixture.clock)
            .verify(tokens["access_token"] as! String, ring: try fixture.ring())
        return claims.sessionID.lowercased()
    }

    /// The providers of the identities an `/account` answer lists.
    static func providers(_ response: TestResponse) -> [String] {
        ((response.json["identities"] as? [[String: Any]]) ?? []).compactMap { $0["provider"] as? String }
    }
}
