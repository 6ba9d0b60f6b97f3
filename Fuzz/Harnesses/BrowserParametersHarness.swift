import Foundation
import IssuerCore

/// The query or form body of a browser request (the authorization, callback and logout
/// endpoints): refused exactly when it is not well encoded, each name's first non-empty value
/// kept, and read alike by the OAuth body parser. Fuzzed by Fuzz/BrowserParameters, replayed on
/// its corpus by Tests/FuzzCorpusTests.
public enum BrowserParametersHarness {
    /// One input; a failed check traps, as libFuzzer expects.
    public static func run(_ input: UnsafeRawBufferPointer) {
        let text = String(decoding: input, as: UTF8.self)
        let pairs = FormURLEncoding.pairs(text)
        guard let parameters = try? BrowserParameters.parse(text) else {
            precondition(pairs == nil, "a well-encoded text was refused: \(text.debugDescription)")
            return
        }
        precondition(pairs != nil, "a malformed text was accepted")
        // Empty values count as absent; a repeated name is one that is also present.
        precondition(!parameters.values.values.contains(""), "an empty value kept")
        precondition(parameters.repeated.isSubset(of: Set(parameters.values.keys)), "repeated names not present")
        // Each name's first non-empty value, in the text's order.
        for (name, value) in pairs! where !value.isEmpty {
            precondition(parameters[name] != nil)
            if parameters[name] != value { precondition(parameters.repeated.contains(name), "\(name) not first or not reported") }
        }
        // Encoding the values again gives the same parameters, with nothing repeated.
        let encoded = parameters.values.sorted { $0.key < $1.key }.map { "\(encode($0.key))=\(encode($0.value))" }.joined(separator: "&")
        let again = try? BrowserParameters.parse(encoded)
        precondition(again?.values == parameters.values && again?.repeated.isEmpty == true, "round trip changed \(parameters)")
        // The OAuth body parser reads the same pairs, refusing only what repeats.
        if let body = try? OAuthRequestBody.parseForm(text) {
            precondition(parameters.repeated.isEmpty, "the OAuth parser accepted a repeated name")
            for (name, value) in parameters.values { precondition(body.values[name] == value) }
        }
    }

    /// RFC 3986 unreserved: everything else is percent-encoded.
    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    private static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved)!
    }
}
