/// The reader's languages from `Accept-Language` (RFC 9110 §12.5.4), best first, and the one of
/// ours that answers them (RFC 4647 §3.4, Lookup): each range in turn, from the highest weight,
/// asks for its own tag and then for shorter ones (`fr-CH`, then `fr`); the first that we have
/// wins. A range we cannot answer, a malformed entry, `q=0` or a missing header leave English
/// (docs/reference.md, "The pages people see").
public struct LanguagePreference: Sendable, Equatable {
    /// Language ranges, lower case, best first (equal weights in the order sent).
    public let ranges: [String]

    /// Bounds on what is read of a header a client chose: longer ones are cut, never refused.
    static let maximumHeaderLength = 1024
    static let maximumRanges = 32

    public init(acceptLanguage header: String?) {
        guard let header else {
            ranges = []
            return
        }
        var weighted: [(range: String, weight: Double, order: Int)] = []
        let entries = header.prefix(Self.maximumHeaderLength).split(separator: ",").prefix(Self.maximumRanges)
        for (order, entry) in entries.enumerated() {
            let parts = entry.split(separator: ";", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            let range = parts[0].lowercased()
            guard Self.isLanguageRange(range) else { continue }
            var weight = 1.0
            var valid = true
            for parameter in parts.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard pair.count == 2, pair[0].lowercased() == "q", let q = Self.qvalue(pair[1]) else {
                    valid = false
                    break
                }
                weight = q
            }
            guard valid, weight > 0 else { continue }
            weighted.append((range, weight, order))
        }
        ranges = weighted.sorted { ($0.weight, -$0.order) > ($1.weight, -$1.order) }.map(\.range)
    }

    /// The tag of `available` (lower case) that answers these ranges best; `fallback` when none
    /// does. `*` asks for anything, which the fallback is.
    public func language(among available: Set<String>, fallback: String = MessageCatalogue.fallbackLanguage) -> String {
        for range in ranges {
            if range == "*" { return fallback }
            var tag = range
            while true {
                if available.contains(tag) { return tag }
                guard let cut = tag.lastIndex(of: "-") else { break }
                tag = String(tag[..<cut])
                // RFC 4647 §3.4: a single-letter subtag left at the end goes with the one after it.
                if let last = tag.lastIndex(of: "-"), tag.distance(from: last, to: tag.endIndex) == 2 {
                    tag = String(tag[..<last])
                }
            }
        }
        return fallback
    }

    /// RFC 4647 §2.1: `*`, or 1–8 letters followed by `-` and 1–8 letters or digits, again and again.
    static func isLanguageRange(_ text: String) -> Bool {
        if text == "*" { return true }
        let subtags = text.split(separator: "-", omittingEmptySubsequences: false)
        guard let first = subtags.first, (1...8).contains(first.count), first.allSatisfy({ $0.isASCII && $0.isLetter }) else {
            return false
        }
        return subtags.dropFirst().allSatisfy { subtag in
            (1...8).contains(subtag.count) && subtag.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
        }
    }

    /// RFC 9110 §12.4.2: `0` or `1` with up to three decimals, nothing above 1.
    static func qvalue(_ text: String) -> Double? {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, whole == "0" || whole == "1" else { return nil }
        if parts.count == 2 {
            let decimals = parts[1]
            guard decimals.count <= 3, decimals.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            if whole == "1", decimals.contains(where: { $0 != "0" }) { return nil }
        }
        return Double(text)
    }
}
