import IssuerCore

/// `Cache-Control` from a remote party (RFC 9111 §5.2): whatever the text, what parses serializes
/// to text that parses the same, and its lifetime and directive names are sound. Fuzzed by
/// Fuzz/CacheControl, replayed on its corpus by Tests/FuzzCorpusTests.
public enum CacheControlHarness {
    /// One input; a failed check traps, as libFuzzer expects.
    public static func run(_ input: UnsafeRawBufferPointer) {
        let text = String(decoding: input, as: UTF8.self)
        let parsed = CacheControl(text)
        // What parses serializes to something that parses the same.
        let again = CacheControl(parsed.serialized)
        precondition(again == parsed, "round trip changed \(parsed.directives) into \(again.directives)")
        if let lifetime = parsed.freshnessLifetime {
            precondition((0...CacheControl.deltaSecondsCeiling).contains(lifetime), "lifetime \(lifetime)")
        }
        for directive in parsed.directives {
            precondition(!directive.name.isEmpty && directive.name == directive.name.lowercased(), "name \(directive.name)")
        }
    }
}
