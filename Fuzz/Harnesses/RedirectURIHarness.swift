import Foundation
import IssuerCore

/// The redirects of the hosted flow, parameters added to a registered URI. The first line of the
/// input is the URI; each further line a parameter, its name before the first tab and its value
/// after it (a line without a tab: a parameter with no value, left out). Fuzzed by
/// Fuzz/RedirectURI, replayed on its corpus by Tests/FuzzCorpusTests.
public enum RedirectURIHarness {
    /// One input; a failed check traps, as libFuzzer expects.
    public static func run(_ input: UnsafeRawBufferPointer) {
        let text = String(decoding: input, as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let uri = lines[0]
        let parameters: [(String, String?)] = lines.dropFirst().map { line in
            guard let tab = line.firstIndex(of: "\t") else { return (line, nil) }
            return (String(line[..<tab]), String(line[line.index(after: tab)...]))
        }
        let given = parameters.compactMap { name, value in value.map { (name, $0) } }

        // Encoding leaves only unreserved characters and %XX, and decodes back to the text.
        for (name, value) in given {
            for part in [name, value] {
                let encoded = RedirectURI.encode(part)
                precondition(isEncoded(Array(encoded.utf8)), "encode(\(part.debugDescription)) = \(encoded)")
                precondition(encoded.removingPercentEncoding == part, "encode(\(part.debugDescription)) does not decode back")
            }
        }

        let result = Array(RedirectURI.adding(parameters, to: uri).utf8)
        let original = Array(uri.utf8)
        guard !given.isEmpty else {
            precondition(result == original, "nothing to add, yet \(uri) changed")
            return
        }
        // The registered URI is kept as it is around what is added: its base before, its fragment after.
        let hash = original.firstIndex(of: UInt8(ascii: "#")) ?? original.endIndex
        let base = original[..<hash], fragment = original[hash...]
        precondition(result.starts(with: base) && result.reversed().starts(with: fragment.reversed()), "\(uri) was altered")
        var added = result[base.count..<(result.count - fragment.count)]
        // Then one separator, none when the query already ends in one.
        if !base.contains(UInt8(ascii: "?")) {
            precondition(added.first == UInt8(ascii: "?"), "no query started")
            added = added.dropFirst()
        } else if base.last != UInt8(ascii: "?") && base.last != UInt8(ascii: "&") {
            precondition(added.first == UInt8(ascii: "&"), "no separator")
            added = added.dropFirst()
        }
        // And exactly the parameters given, in order: nothing a value holds adds a parameter or ends
        // the query.
        let pairs = added.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: false).map { pair in
            pair.split(separator: UInt8(ascii: "="), omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self).removingPercentEncoding }
        }
        precondition(pairs.count == given.count, "\(given.count) parameters added as \(pairs.count)")
        for (pair, (name, value)) in zip(pairs, given) {
            precondition(pair.count == 2 && pair[0] == name && pair[1] == value, "\(name)=\(value) added as \(pair)")
        }
    }

    /// Only RFC 3986 unreserved characters and `%` with two upper-case hex digits.
    private static func isEncoded(_ bytes: [UInt8]) -> Bool {
        var index = 0
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                index += 1
            case UInt8(ascii: "%"):
                let hex = Array("0123456789ABCDEF".utf8)
                guard index + 2 < bytes.count, hex.contains(bytes[index + 1]), hex.contains(bytes[index + 2]) else { return false }
                index += 3
            default:
                return false
            }
        }
        return true
    }
}
