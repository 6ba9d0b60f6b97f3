import Foundation

/// A strict subset of WHATWG `application/x-www-form-urlencoded` (the URL Standard, §5.1):
/// `&`-separated `name=value` pairs, `+` for a space, percent-encoded UTF-8; where WHATWG keeps an
/// invalid `%` as text or replaces bytes that are not UTF-8 with U+FFFD, this refuses. The one decoder of form bodies and
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

    /// `+` is a space and `%XX` a byte (two hex digits, either case); the bytes must be UTF-8.
    /// Nil for a `%` without two hex digits after it, or bytes that are not UTF-8, never U+FFFD in
    /// their place (Foundation's `removingPercentEncoding`, which this replaced and the tests
    /// compare it with, refused some such bytes and replaced others). Read as bytes because the
    /// Foundation call was 4% of a refresh's own CPU (docs/performance.md, "What was tried").
    private static func decode(_ component: Substring.UTF8View.SubSequence) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(component.count)
        var index = component.startIndex
        while index < component.endIndex {
            let byte = component[index]
            component.formIndex(after: &index)
            switch byte {
            case UInt8(ascii: "+"): bytes.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard index < component.endIndex, let high = hexValue(component[index]) else { return nil }
                component.formIndex(after: &index)
                guard index < component.endIndex, let low = hexValue(component[index]) else { return nil }
                component.formIndex(after: &index)
                bytes.append(high << 4 | low)
            default: bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
