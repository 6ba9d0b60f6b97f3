import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import TestSupport

/// A token revocation request (docs/reference.md, "Revocation"; RFC 7009), answered as it came.
enum RevocationRequest {
    static func post(_ client: some TestClientProtocol, _ token: String?, clientID: String? = "clanboards-mobile") async throws -> TestResponse {
        var fields: [(String, String)] = []
        if let token { fields.append(("token", token)) }
        if let clientID { fields.append(("client_id", clientID)) }
        return try await client.postForm("/oauth2/revoke", fields)
    }
}
