import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import TestSupport

/// A request to `/userinfo` (docs/reference.md, "UserInfo"; OpenID Connect Core 5.3) with the
/// bearer `token`, or none, answered as it came.
enum UserInfoRequest {
    static func send(_ client: some TestClientProtocol, _ token: String?, method: HTTPRequest.Method = .get) async throws -> TestResponse {
        var headers: HTTPFields = [:]
        if let token { headers[.authorization] = "Bearer \(token)" }
        return try await client.executeRequest(uri: "/userinfo", method: method, headers: headers, body: nil)
    }
}
