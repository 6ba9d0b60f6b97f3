import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import TestSupport

/// `DELETE /account` (docs/reference.md, "Account deletion"): the bearer and the session's
/// refresh token, the second proof, in either body an app may send.
enum AccountDeletionRequest {
    /// How the refresh token travels: both bodies an app may send.
    enum Body: CaseIterable, Sendable { case form, json }

    /// `DELETE /account` with the bearer `token` and, unless nil, `refreshToken` in a body.
    static func delete(
        _ client: some TestClientProtocol, _ token: String?, refreshToken: String?, body: Body = .form
    ) async throws -> TestResponse {
        var headers: HTTPFields = [:]
        if let token { headers[.authorization] = "Bearer \(token)" }
        guard let refreshToken else {
            return try await client.executeRequest(uri: "/account", method: .delete, headers: headers, body: nil)
        }
        let bytes: Data
        switch body {
        case .form:
            headers[.contentType] = "application/x-www-form-urlencoded"
            bytes = Data("refresh_token=\(refreshToken)".utf8)
        case .json:
            headers[.contentType] = "application/json"
            bytes = try JSONSerialization.data(withJSONObject: ["refresh_token": refreshToken])
        }
        return try await client.executeRequest(uri: "/account", method: .delete, headers: headers, body: ByteBuffer(bytes: bytes))
    }

    /// `delete` with both proofs of the session `tokens` came from.
    static func delete(_ client: some TestClientProtocol, session tokens: [String: Any], body: Body = .form) async throws -> TestResponse {
        try await delete(client, tokens["access_token"] as? String, refreshToken: tokens["refresh_token"] as? String, body: body)
    }
}
