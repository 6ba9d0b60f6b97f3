import Foundation

/// The parameters in an OAuth request body (docs/reference.md, "Requests and errors" and "Faults and bad input"): `application/x-www-form-urlencoded` as
/// RFC 6749 §4 requires, or `application/json`. The pure part of the server's `OAuthParameters`:
/// bytes in, parameters or `invalid_request` out, fuzzed by Fuzz/FormBody and Fuzz/JSONBody.
///
/// Non-UTF-8 bytes, malformed encodings and repeated parameters (RFC 6749 §3.1, in either
/// encoding) are refused. Values are kept as sent; what a field may contain is the endpoint's
/// decision.
public struct OAuthRequestBody: Sendable, Equatable {
    /// Parameters with a string value (a JSON number or boolean as its text).
    public var values: [String: String]
    /// JSON members that are objects (the exchange's `name`), whose members must be strings (or null, absent).
    public var objects: [String: [String: String]]

    /// JSON members that are objects with a member that is not a string: refused by an endpoint
    /// that reads them (`name` members must be strings), ignored by the others.
    public var malformedObjects: Set<String>
    /// JSON members that are arrays, which no parameter of ours is: refused by an endpoint that
    /// reads them, ignored by the others, as every unknown parameter is.
    public var arrays: Set<String>

    /// Parameters as they would be parsed.
    public init(
        values: [String: String], objects: [String: [String: String]] = [:], malformedObjects: Set<String> = [],
        arrays: Set<String> = []
    ) {
        self.values = values
        self.objects = objects
        self.malformedObjects = malformedObjects
        self.arrays = arrays
    }

    /// Parses `bytes` as JSON when `json`, else as a form.
    public static func parse(_ bytes: [UInt8], json: Bool) throws(OAuthError) -> OAuthRequestBody {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw .invalidRequest("The request body is not UTF-8.")
        }
        return json ? try parseJSON(Data(bytes)) : try parseForm(text)
    }

    /// A form body (`FormURLEncoding`); a repeated name is refused (RFC 6749 §3.1).
    public static func parseForm(_ text: String) throws(OAuthError) -> OAuthRequestBody {
        guard let pairs = FormURLEncoding.pairs(text) else {
            throw .invalidRequest("The form body is not validly percent-encoded.")
        }
        var values: [String: String] = [:]
        for (name, value) in pairs {
            guard values[name] == nil else { throw .invalidRequest("The \(name) parameter is repeated.") }
            values[name] = value
        }
        return OAuthRequestBody(values: values)
    }

    /// An RFC 8259 object in UTF-8. Arrays are never parameters of ours (recorded in `arrays`);
    /// `null` counts as absent.
    public static func parseJSON(_ data: Data) throws(OAuthError) -> OAuthRequestBody {
        // A raw control byte is invalid JSON in UTF-8, and its presence is how Foundation would
        // guess UTF-16 or UTF-32; refusing it keeps the bytes read below the bytes parsed.
        guard !data.contains(where: { $0 < 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else {
            throw .invalidRequest("The JSON body is not an object.")
        }
        if let repeated = firstRepeatedMember(Array(data)) {
            throw .invalidRequest("The \(repeated) parameter is repeated.")
        }
        var values: [String: String] = [:]
        var objects: [String: [String: String]] = [:]
        var malformedObjects: Set<String> = []
        var arrays: Set<String> = []
        for (name, value) in object {
            switch value {
            case let string as String:
                values[name] = string
            case let nested as [String: Any]:
                // The only object of ours (the exchange's `name`) is an object of strings: a member
                // of another type is a client's mistake to report, not to drop silently.
                // Recorded, and refused only by an endpoint that reads it: unknown parameters stay ignored.
                var members: [String: String] = [:]
                for (member, memberValue) in nested {
                    switch memberValue {
                    case let string as String: members[member] = string
                    case is NSNull: continue
                    default: malformedObjects.insert(name)
                    }
                }
                if !malformedObjects.contains(name) { objects[name] = members }
            case is NSNull:
                continue
            case is [Any]:
                arrays.insert(name)
            default:
                // Numbers and booleans are not parameters of ours: kept as their text.
                values[name] = "\(value)"
            }
        }
        return OAuthRequestBody(values: values, objects: objects, malformedObjects: malformedObjects, arrays: arrays)
    }

    /// The first member name of the top-level object that occurs twice (RFC 8259 §4 leaves
    /// duplicates to the implementation, and Foundation keeps one silently). `bytes` must
    /// already be known to be a valid JSON object.
    static func firstRepeatedMember(_ bytes: [UInt8]) -> String? {
        var seen: Set<String> = []
        var depth = 0
        var expectingName = false
        var index = 0
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                expectingName = depth == 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
            case UInt8(ascii: ","):
                expectingName = depth == 1
            case UInt8(ascii: "\""):
                let start = index
                index += 1
                while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                    index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
                }
                if expectingName, index < bytes.count {
                    let literal = Data(bytes[start...index])
                    let name = (try? JSONSerialization.jsonObject(with: literal, options: .fragmentsAllowed)) as? String
                    if let name, !seen.insert(name).inserted { return name }
                    expectingName = false
                }
            default:
                break
            }
            index += 1
        }
        return nil
    }
}
