import Foundation
import IssuerCore

/// An `application/json` OAuth request body: what parses, written back as a JSON object, parses
/// the same. Fuzzed by Fuzz/JSONBody, replayed on its corpus by Tests/FuzzCorpusTests.
public enum JSONBodyHarness {
    /// One input; a failed check traps, as libFuzzer expects.
    public static func run(_ input: UnsafeRawBufferPointer) {
        let bytes = Array(input)
        guard let parsed = try? OAuthRequestBody.parse(bytes, json: true) else { return }
        // Writing the parameters back as a JSON object of strings and parsing it gives the same.
        var object: [String: Any] = parsed.values
        for (name, members) in parsed.objects { object[name] = members }
        for name in parsed.malformedObjects { object[name] = ["member": 1] }
        for name in parsed.arrays { object[name] = ["element"] }
        guard let json = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else {
            preconditionFailure("parsed parameters cannot be written back: \(parsed)")
        }
        let again = try? OAuthRequestBody.parse(Array(json), json: true)
        precondition(again == parsed, "round trip changed \(parsed) into \(String(describing: again))")
    }
}
