import Foundation
import Hummingbird
import IssuerCore

/// The parameters of an OAuth request, parsed once from the body (docs/reference.md, "Requests and errors" and "Faults and bad input"):
/// `application/x-www-form-urlencoded` as RFC 6749 §4 requires, or `application/json`.
///
/// Bodies over 64 KiB and other content types are refused here; the body itself is parsed by
/// `OAuthRequestBody` (non-UTF-8 bytes, malformed encodings and repeated parameters, RFC 6749
/// §3.1, are `invalid_request` before anything else happens). Empty values count as absent
/// (RFC 6749 §3.1); unknown parameters are ignored.
struct OAuthParameters: Sendable {
    private var values: [String: String]
    /// JSON members that are objects (the exchange's `name`), flattened to strings.
    private var objects: [String: [String: String]]
    /// Objects with a member that is not a string.
    private var malformedObjects: Set<String>
    /// JSON members that are arrays: refused when read, ignored otherwise.
    private var arrays: Set<String>

    init(
        values: [String: String], objects: [String: [String: String]] = [:], malformedObjects: Set<String> = [],
        arrays: Set<String> = []
    ) {
        self.values = values.filter { !$0.value.isEmpty }
        self.objects = objects
        self.malformedObjects = malformedObjects
        self.arrays = arrays
    }

    func optional(_ name: String) throws(OAuthError) -> String? {
        guard !arrays.contains(name) else { throw .invalidRequest("The \(name) parameter must be a string.") }
        return values[name]
    }

    func required(_ name: String) throws(OAuthError) -> String {
        guard let value = try optional(name) else { throw .invalidRequest("The \(name) parameter is required.") }
        return value
    }

    /// An object of strings; `invalid_request` when a member is of another type, or it is an array.
    func object(_ name: String) throws(OAuthError) -> [String: String]? {
        guard !malformedObjects.contains(name), !arrays.contains(name) else { throw .invalidRequest("The \(name) members must be strings.") }
        return objects[name]
    }

    /// Reads and parses the request body.
    static func parse(_ request: Request) async throws(OAuthError) -> OAuthParameters {
        let contentType = request.headers.mediaType
        let isJSON: Bool
        switch contentType {
        case "application/x-www-form-urlencoded": isJSON = false
        case "application/json": isJSON = true
        default:
            throw .invalidRequest("The body must be application/x-www-form-urlencoded or application/json.")
        }
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: Route.maximumRequestBodySize)
        } catch {
            throw OAuthError(.invalidRequest, "The request body is larger than 64 KiB.", status: 413)
        }
        let body = try OAuthRequestBody.parse(Array(buffer.readableBytesView), json: isJSON)
        return OAuthParameters(values: body.values, objects: body.objects, malformedObjects: body.malformedObjects, arrays: body.arrays)
    }
}
