import Foundation

/// Posts a form to one of Apple's endpoints (`ISSUER_APPLE_TOKEN_URL`, `ISSUER_APPLE_REVOKE_URL`).
/// The server implements it over HTTP under the rules (docs/reference.md, "Faults and bad input") (one deadline for the whole exchange,
/// a body cap, no redirects); keeping HTTP out of the core, as `JWKSFetcher` does, keeps the
/// custody and revocation rules testable on their own.
public protocol AppleHTTPTransport: Sendable {
    /// POSTs `fields` as `application/x-www-form-urlencoded` and answers the status and body of
    /// any non-redirect answer; throws when no complete answer came within `timeout`.
    func postForm(to url: URL, fields: [(String, String)], timeout: Duration) async throws -> AppleHTTPAnswer
}

/// What one of Apple's endpoints answered.
public struct AppleHTTPAnswer: Sendable {
    /// The HTTP status.
    public var status: Int
    /// The body, already bounded by the transport.
    public var body: Data

    /// An answer as the transport read it.
    public init(status: Int, body: Data) {
        self.status = status
        self.body = body
    }

    /// RFC 6749 §5.2 `error` of a JSON error body, when there is one.
    var oauthError: String? {
        ((try? JSONSerialization.jsonObject(with: body)) as? [String: Any])?["error"] as? String
    }
}
