import Foundation

/// Sends one request without a body to a remote API (Facebook's Graph API: `GET` of
/// `debug_token` and `/me`, `DELETE` of a user's permissions), as `FormPoster` posts forms: the
/// server implements it over HTTP under the rules of every remote call (docs/reference.md,
/// "Faults and bad input": one deadline, a 64 KiB answer, no redirects, the outbound proxy), and
/// tests can replace it. The URL may carry credentials in its query, as the Graph API takes
/// them: an implementation never logs it.
public protocol RemoteRequester: Sendable {
    /// The status and bounded body of any non-redirect answer; throws when no complete answer
    /// came within `timeout`.
    func send(_ method: String, to url: URL, timeout: Duration) async throws -> FormPostAnswer
}
