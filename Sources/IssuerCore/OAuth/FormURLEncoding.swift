import Foundation

/// WHATWG `application/x-www-form-urlencoded` (the URL Standard, §5.1): `&`-separated
/// `name=value` pairs, `+` for a space, percent-encoded UTF-8. The one decoder of form bodies and
/// query strings: OAuth request bodies (`OAuthRequestBody`) and browser requests
/// (`BrowserParameters`) differ only in what they do with a repeated name.
public enum FormURLEncoding {
    /// The pairs of `text` in order (empty segments skipped; a name without `=` has the value
    /// ""), or nil when a name or value is not validly percent-encoded UTF-8.
    public static func pairs(_ text: String) -> [(name: String, value: String)]? {
        // The delimiters are bytes: `&` or `=` followed by a combining mark is one Swift
        // `Character`, which Character-wise splitting would not see.
        var pairs: [(name: String, value: String)] = []
        for pair in text.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(parts[0]), let value = parts.count == 2 ? decode(parts[1]) : "" else { return nil }
            pairs.append((name, value))
        }
        return pairs
    }

    private static func decode(_ component: Substring.UTF8View.SubSequence) -> String? {
        String(decoding: component.map { $0 == UInt8(ascii: "+") ? UInt8(ascii: " ") : $0 }, as: UTF8.self).removingPercentEncoding
    }
}
