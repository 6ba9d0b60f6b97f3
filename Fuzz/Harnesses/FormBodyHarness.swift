import Foundation
import IssuerCore

/// An `application/x-www-form-urlencoded` OAuth request body: what parses has no objects and
/// parses the same once encoded again. Fuzzed by Fuzz/FormBody, replayed on its corpus by
/// Tests/FuzzCorpusTests.
public enum FormBodyHarness {
    /// One input; a failed check traps, as libFuzzer expects.
    public static func run(_ input: UnsafeRawBufferPointer) {
        let bytes = Array(input)
        guard let parsed = try? OAuthRequestBody.parse(bytes, json: false) else { return }
        precondition(parsed.objects.isEmpty, "a form has no objects")
        // Encoding every pair again and parsing it gives the same parameters.
        let encoded = parsed.values.sorted { $0.key < $1.key }.map { "\(encode($0.key))=\(encode($0.value))" }
        let again = try? OAuthRequestBody.parse(Array(encoded.joined(separator: "&").utf8), json: false)
        precondition(again == parsed, "round trip changed \(parsed) into \(String(describing: again))")
    }

    /// RFC 3986 unreserved: everything else is percent-encoded.
    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    private static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved)!
    }
}
