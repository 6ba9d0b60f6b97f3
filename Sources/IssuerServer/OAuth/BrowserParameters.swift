import Foundation
import Hummingbird
import IssuerCore

/// The parameters of a request a browser makes (the authorization, callback and logout
/// endpoints): the query of a `GET`, the `application/x-www-form-urlencoded` body of a `POST`
/// (OIDC Core §3.1.2.1, RP-Initiated Logout §2, Apple's `form_post`). A name given twice is
/// reported rather than refused here, because where the error goes (a page or a redirect)
/// depends on which name it is (RFC 6749 §4.1.2.1). Empty values count as absent (RFC 6749 §3.1).
struct BrowserParameters: Sendable {
    var values: [String: String] = [:]
    var repeated: Set<String> = []

    subscript(_ name: String) -> String? { values[name] }

    /// A malformed encoding or a non-UTF-8 body is a `400` page, never a redirect: nothing in
    /// the request can be trusted yet.
    struct Malformed: Error {}

    static func read(_ request: Request, context: IssuerRequestContext) async throws -> BrowserParameters {
        if request.method == .post {
            let contentType = request.headers[.contentType]?.split(separator: ";").first?
                .trimmingCharacters(in: .whitespaces).lowercased()
            guard contentType == "application/x-www-form-urlencoded" else { throw Malformed() }
            let buffer = try await request.body.collect(upTo: context.maxUploadSize)
            guard let text = String(validating: buffer.readableBytesView, as: UTF8.self) else { throw Malformed() }
            return try parse(text)
        }
        return try parse(request.uri.query ?? "")
    }

    static func parse(_ text: String) throws -> BrowserParameters {
        var parameters = BrowserParameters()
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(parts[0]), let value = parts.count == 2 ? decode(parts[1]) : "" else { throw Malformed() }
            guard !value.isEmpty else { continue }
            if parameters.values[name] != nil {
                parameters.repeated.insert(name)
            } else {
                parameters.values[name] = value
            }
        }
        return parameters
    }

    private static func decode(_ component: Substring) -> String? {
        component.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
