/// A `Cache-Control` header value (RFC 9111 §5.2), parsed by a total function: whatever a remote
/// party sends, parsing returns, and the worst a hostile value can do is be ignored (docs/reference.md, "Faults and bad input").
///
/// The grammar is RFC 9110 §5.6.1's list of `token [ "=" ( token / quoted-string ) ]`. Empty list
/// elements and whitespace around them are accepted, as §5.6.1 requires of recipients; an element
/// that does not follow the grammar is dropped, and parsing resumes after the next comma outside a
/// quoted string. Fuzzed by Fuzz/CacheControl.
public struct CacheControl: Sendable, Equatable {
    /// One `cache-directive`: its name lowercased (names are case-insensitive, RFC 9111 §5.2),
    /// its argument as sent, with a quoted string's quoting removed.
    public struct Directive: Sendable, Equatable {
        /// Lowercased token.
        public var name: String
        /// nil when the directive has no `=`.
        public var argument: String?

        /// A directive as it would be parsed.
        public init(name: String, argument: String? = nil) {
            self.name = name
            self.argument = argument
        }
    }

    /// RFC 9111 §1.2.2: a `delta-seconds` too large to represent counts as 2^31.
    public static let deltaSecondsCeiling = 2_147_483_648

    /// The well-formed directives, in order, duplicates included.
    public private(set) var directives: [Directive]

    /// Parses `value`; never fails.
    public init(_ value: String) {
        var parser = Parser(bytes: Array(value.utf8))
        directives = parser.parseList()
    }

    /// The directives of an already parsed value.
    public init(directives: [Directive]) {
        self.directives = directives
    }

    /// The argument of the first directive named `name` (RFC 9111 §4.2.1: with duplicates, the
    /// first occurrence is used); `.some(nil)` when present without an argument.
    public func first(_ name: String) -> String?? {
        directives.first { $0.name == name }.map(\.argument)
    }

    /// How long, in seconds, a response may be reused (RFC 9111 §4.2.1): nil when the value says
    /// nothing about it; 0 for `no-store` or `no-cache` (the most restrictive directive wins) and
    /// for an invalid `max-age` (§4.2.1 encourages treating those as stale); otherwise the first
    /// `max-age`, at most `deltaSecondsCeiling`.
    public var freshnessLifetime: Int? {
        if directives.contains(where: { $0.name == "no-store" || $0.name == "no-cache" }) { return 0 }
        guard let argument = first("max-age") else { return nil }
        return argument.flatMap(Self.deltaSeconds) ?? 0
    }

    /// RFC 9111 §1.2.2 `delta-seconds = 1*DIGIT`, saturating at `deltaSecondsCeiling`; nil for
    /// anything else (a sign, a fraction, an empty string).
    public static func deltaSeconds(_ text: String) -> Int? {
        guard !text.isEmpty else { return nil }
        var value = 0
        for byte in text.utf8 {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = min(deltaSecondsCeiling, value * 10 + Int(byte - UInt8(ascii: "0")))
        }
        return value
    }

    /// The value written back in canonical form: what parses to the same directives.
    public var serialized: String {
        directives.map { directive in
            guard let argument = directive.argument else { return directive.name }
            if !argument.isEmpty, argument.utf8.allSatisfy(Self.isTokenByte) {
                return "\(directive.name)=\(argument)"
            }
            var quoted = "\""
            for character in argument.unicodeScalars {
                if character == "\"" || character == "\\" { quoted.append("\\") }
                quoted.unicodeScalars.append(character)
            }
            return "\(directive.name)=\(quoted)\""
        }.joined(separator: ", ")
    }

    /// RFC 9110 §5.6.2 `tchar`.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }
}

extension CacheControl {
    /// A cursor over the header's bytes; every loop advances it, so parsing ends.
    struct Parser {
        let bytes: [UInt8]
        var index = 0

        init(bytes: [UInt8]) {
            self.bytes = bytes
        }

        var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func parseList() -> [Directive] {
            var directives: [Directive] = []
            while current != nil {
                skipWhitespace()
                if current == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                guard current != nil else { break }
                let start = index
                if let directive = parseElement() {
                    directives.append(directive)
                } else {
                    // Rescan the element from its start, so a quote it opened is still seen.
                    index = start
                    skipToNextElement()
                }
            }
            return directives
        }

        /// One element up to (not including) its comma, or nil if it breaks the grammar.
        mutating func parseElement() -> Directive? {
            guard let name = token() else { return nil }
            var directive = Directive(name: String(decoding: name.map(Self.lowercased), as: UTF8.self))
            skipWhitespace()
            if current == UInt8(ascii: "=") {
                index += 1
                skipWhitespace()
                if current == UInt8(ascii: "\"") {
                    guard let argument = quotedString() else { return nil }
                    directive.argument = String(decoding: argument, as: UTF8.self)
                } else {
                    guard let argument = token() else { return nil }
                    directive.argument = String(decoding: argument, as: UTF8.self)
                }
                skipWhitespace()
            }
            guard current == nil || current == UInt8(ascii: ",") else { return nil }
            return directive
        }

        mutating func token() -> ArraySlice<UInt8>? {
            let start = index
            while let byte = current, CacheControl.isTokenByte(byte) { index += 1 }
            return index > start ? bytes[start..<index] : nil
        }

        /// RFC 9110 §5.6.4, the opening quote at `index`; nil if unterminated or if it holds a
        /// byte that `qdtext` and `quoted-pair` exclude (control characters, DEL).
        mutating func quotedString() -> [UInt8]? {
            index += 1
            var text: [UInt8] = []
            while let byte = current {
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return text
                case UInt8(ascii: "\\"):
                    guard let escaped = current, Self.isQuotable(escaped) else { return nil }
                    text.append(escaped)
                    index += 1
                default:
                    guard Self.isQuotable(byte) else { return nil }
                    text.append(byte)
                }
            }
            return nil
        }

        /// Past the next comma that is not inside a quoted string (or to the end).
        mutating func skipToNextElement() {
            var quoted = false
            while let byte = current {
                index += 1
                if quoted {
                    if byte == UInt8(ascii: "\\") {
                        if current != nil { index += 1 }
                    } else if byte == UInt8(ascii: "\"") {
                        quoted = false
                    }
                } else if byte == UInt8(ascii: "\"") {
                    quoted = true
                } else if byte == UInt8(ascii: ",") {
                    return
                }
            }
        }

        /// RFC 9110 §5.6.3 OWS.
        mutating func skipWhitespace() {
            while current == UInt8(ascii: " ") || current == UInt8(ascii: "\t") { index += 1 }
        }

        /// HTAB, SP, VCHAR and obs-text: what may stand in a quoted string, escaped or not.
        static func isQuotable(_ byte: UInt8) -> Bool {
            byte == 0x09 || (byte >= 0x20 && byte != 0x7F)
        }

        static func lowercased(_ byte: UInt8) -> UInt8 {
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
        }
    }
}
