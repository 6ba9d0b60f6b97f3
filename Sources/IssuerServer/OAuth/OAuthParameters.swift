import Foundation
import Hummingbird
import IssuerCore

/// The parameters of an OAuth request, parsed once from the body (SPEC §3, §7):
/// `application/x-www-form-urlencoded` as RFC 6749 §4 requires, or `application/json`.
///
/// Bodies over 64 KiB, other content types, non-UTF-8 bytes, malformed encodings and repeated
/// parameters (RFC 6749 §3.1) are refused as `invalid_request` before anything else happens.
/// Empty values count as absent (RFC 6749 §3.1); unknown parameters are ignored.
struct OAuthParameters: Sendable {
    static let maximumBodySize = 64 * 1024

    private var values: [String: String]
    /// JSON members that are objects (the exchange's `name`), flattened to strings.
    private var objects: [String: [String: String]]

    init(values: [String: String], objects: [String: [String: String]] = [:]) {
        self.values = values.filter { !$0.value.isEmpty }
        self.objects = objects
    }

    func optional(_ name: String) -> String? { values[name] }

    func required(_ name: String) throws(OAuthError) -> String {
        guard let value = values[name] else { throw .invalidRequest("The \(name) parameter is required.") }
        return value
    }

    func object(_ name: String) -> [String: String]? { objects[name] }

    /// Reads and parses the request body.
    static func parse(_ request: Request) async throws(OAuthError) -> OAuthParameters {
        let contentType = request.headers[.contentType]?.split(separator: ";").first?
            .trimmingCharacters(in: .whitespaces).lowercased()
        let isJSON: Bool
        switch contentType {
        case "application/x-www-form-urlencoded": isJSON = false
        case "application/json": isJSON = true
        default:
            throw .invalidRequest("The body must be application/x-www-form-urlencoded or application/json.")
        }
        let body = request.body
        let buffer: ByteBuffer
        do {
            buffer = try await body.collect(upTo: maximumBodySize)
        } catch {
            throw OAuthError(.invalidRequest, "The request body is larger than 64 KiB.", status: 413)
        }
        let bytes = Array(buffer.readableBytesView)
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw .invalidRequest("The request body is not UTF-8.")
        }
        return isJSON ? try parseJSON(Data(bytes)) : try parseForm(text)
    }

    static func parseForm(_ text: String) throws(OAuthError) -> OAuthParameters {
        var values: [String: String] = [:]
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decodeComponent(parts[0]),
                  let value = parts.count == 2 ? decodeComponent(parts[1]) : ""
            else { throw .invalidRequest("The form body is not validly percent-encoded.") }
            guard values[name] == nil else { throw .invalidRequest("The \(name) parameter is repeated.") }
            values[name] = value
        }
        return OAuthParameters(values: values)
    }

    static func parseJSON(_ data: Data) throws(OAuthError) -> OAuthParameters {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw .invalidRequest("The JSON body is not an object.")
        }
        var values: [String: String] = [:]
        var objects: [String: [String: String]] = [:]
        for (name, value) in object {
            switch value {
            case let string as String:
                values[name] = string
            case let nested as [String: Any]:
                objects[name] = nested.compactMapValues { $0 as? String }
            case is NSNull:
                continue
            default:
                // Numbers and booleans are not parameters of ours; arrays are never valid.
                if value is [Any] { throw .invalidRequest("The \(name) parameter must be a string.") }
                values[name] = "\(value)"
            }
        }
        return OAuthParameters(values: values, objects: objects)
    }

    private static func decodeComponent(_ component: Substring) -> String? {
        component.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
