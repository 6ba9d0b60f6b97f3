import Foundation

/// Posts an `application/x-www-form-urlencoded` form to a remote OAuth endpoint: Apple's token,
/// revoke and migration endpoints (`ISSUER_APPLE_TOKEN_URL`, `ISSUER_APPLE_REVOKE_URL`,
/// `ISSUER_APPLE_MIGRATION_URL`), and any provider's token endpoint in the hosted flow.
/// The server implements it over HTTP under the rules (docs/reference.md, "Faults and bad input") (one deadline for the whole exchange,
/// a body cap, no redirects); keeping HTTP out of the core, as `JWKSFetcher` does, keeps the
/// custody and revocation rules testable on their own.
public protocol FormPoster: Sendable {
    /// POSTs `fields` as `application/x-www-form-urlencoded`, with `headers` beside the form's
    /// own (`Authorization` for Apple's migration endpoint), and answers the status and body of
    /// any non-redirect answer; throws when no complete answer came within `timeout`.
    func postForm(to url: URL, fields: [(String, String)], headers: [(String, String)], timeout: Duration) async throws -> FormPostAnswer
}

extension FormPoster {
    /// A form POST with no header of the caller's.
    public func postForm(to url: URL, fields: [(String, String)], timeout: Duration) async throws -> FormPostAnswer {
        try await postForm(to: url, fields: fields, headers: [], timeout: timeout)
    }
}

/// What a remote endpoint answered to a form.
public struct FormPostAnswer: Sendable {
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
    public var oauthError: String? {
        ((try? JSONSerialization.jsonObject(with: body)) as? [String: Any])?["error"] as? String
    }
}
