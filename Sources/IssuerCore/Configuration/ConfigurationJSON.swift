import Foundation

/// The JSON files that settings name (`ISSUER_CLIENTS_FILE`, `ISSUER_PROVIDERS_FILE`), read
/// strictly: an array of objects in RFC 8259's grammar, each object's member names unique. Foundation's
/// parsers accept a trailing comma and keep one of two members of one name; in a file that restricts
/// what a client or a provider may do, either lets what the operator reads differ from what the issuer
/// does (docs/reference.md, "Configuration"). Every problem names the entry, as the operator counts
/// it, and its id when it has one.
enum ConfigurationJSON {
    /// Why a file was refused, phrased to follow the setting's name.
    struct Problem: Error, CustomStringConvertible {
        let description: String
    }

    /// One element of the top-level array, as written.
    struct Entry {
        /// 1-based.
        let position: Int
        /// Its member names in the order written.
        let memberNames: [String]
        /// The value of its identifying member (`id`, `client_id`) when that is a non-empty string.
        let id: String?
        /// Members written as `null`, which a decoder takes for absent: refused, since an absent
        /// restriction (`apple_audiences`, `hosted_domain`) means none.
        let nullMembers: [String]

        /// `entry 2 ('corp')`, or `entry 2` without an id: how every message names it.
        var label: String {
            id.map { "entry \(position) (\(ConfigurationJSON.quoted($0)))" } ?? "entry \(position)"
        }
    }

    /// `text` in single quotes for a message, on one line whatever it holds: control, format
    /// (bidirectional overrides) and line-separating characters escaped, at most 64 characters.
    static func quoted(_ text: String) -> String {
        let escaped = text.unicodeScalars.prefix(64).map { scalar in
            [.control, .format, .lineSeparator, .paragraphSeparator].contains(scalar.properties.generalCategory)
                || scalar == "'" || scalar == "\\"
                ? scalar.escaped(asASCII: true) : String(scalar)
        }
        return "'" + escaped.joined() + (text.unicodeScalars.count > 64 ? "…'" : "'")
    }

    /// The entries of `data`: refused unless it is one JSON array (RFC 8259 §2), a leading byte order
    /// mark aside (§8.1), whose elements are objects with unique member names (§4 leaves duplicates to
    /// the parser; we refuse them), each name in `known` (a misspelt restriction would otherwise be
    /// no restriction) and no value `null`. `noun` names an element in messages ("provider",
    /// "client"), `memberWord` a member ("field", "member").
    static func entries(
        in data: Data, of noun: String, idMember: String, known: Set<String>, memberWord: String
    ) throws(Problem) -> [Entry] {
        var bytes = Array(data)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        var scanner = Scanner(bytes: bytes, idMember: idMember)
        let elements: [Scanner.Element]
        do throws(Scanner.Failure) {
            elements = try scanner.document()
        } catch {
            switch error {
            case .notAnArray(let kind):
                throw Problem(description: "must be a JSON array of \(noun) objects, not \(kind)")
            case .syntax(let offset, let what):
                let (line, column) = Self.lineAndColumn(of: offset, in: bytes)
                throw Problem(description: "is not valid JSON: line \(line), column \(column): \(what)")
            }
        }
        var entries: [Entry] = []
        for (index, element) in elements.enumerated() {
            guard let names = element.memberNames else {
                throw Problem(description: "entry \(index + 1) is \(element.kind), not a \(noun) object")
            }
            let entry = Entry(position: index + 1, memberNames: names, id: element.id, nullMembers: element.nullMembers)
            var seen = Set<String>()
            if let twice = names.first(where: { !seen.insert($0).inserted }) {
                throw Problem(description: "\(entry.label) has the \(memberWord) \(Self.quoted(twice)) twice")
            }
            if let unknown = names.first(where: { !known.contains($0) }) {
                throw Problem(description: "\(entry.label) has an unknown \(memberWord) \(Self.quoted(unknown))")
            }
            if let null = entry.nullMembers.first {
                throw Problem(description: "\(entry.label): \(null) is null (leave the \(memberWord) out, or give it a value)")
            }
            entries.append(entry)
        }
        return entries
    }

    /// The member names of `data`, a file that is one JSON object (the pages' `theme.json` and
    /// `messages/<language>.json`, docs/reference.md, "The pages people see"), read as strictly as
    /// the arrays above: RFC 8259's grammar, a leading byte order mark aside, each name once, each
    /// in `known` (nil: any name), no value `null`. `noun` names the file in messages.
    static func objectMembers(in data: Data, of noun: String, known: Set<String>?) throws(Problem) -> [String] {
        var bytes = Array(data)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        var scanner = Scanner(bytes: bytes, idMember: "")
        let element: Scanner.Element
        do throws(Scanner.Failure) {
            element = try scanner.object()
        } catch {
            switch error {
            case .notAnArray(let kind):
                throw Problem(description: "must be one JSON object (\(noun)), not \(kind)")
            case .syntax(let offset, let what):
                let (line, column) = Self.lineAndColumn(of: offset, in: bytes)
                throw Problem(description: "is not valid JSON: line \(line), column \(column): \(what)")
            }
        }
        let names = element.memberNames ?? []
        var seen = Set<String>()
        if let twice = names.first(where: { !seen.insert($0).inserted }) {
            throw Problem(description: "has the member \(Self.quoted(twice)) twice")
        }
        if let known, let unknown = names.first(where: { !known.contains($0) }) {
            throw Problem(description: "has an unknown member \(Self.quoted(unknown))")
        }
        if let null = element.nullMembers.first {
            throw Problem(description: "has \(Self.quoted(null)) null (leave the member out, or give it a value)")
        }
        return names
    }

    /// `file` read as an array of `Element`: its entries checked as ``entries(in:of:idMember:known:memberWord:)``
    /// says, then decoded, each value with the entry it came from so later messages can name it.
    static func decode<Element: Decodable>(
        _ type: Element.Type, contentsOf file: URL, of noun: String, idMember: String, known: Set<String>, memberWord: String
    ) throws(Problem) -> [(value: Element, entry: Entry)] {
        let data: Data
        do { data = try Data(contentsOf: file) } catch { throw Problem(description: "cannot be read") }
        let written = try entries(in: data, of: noun, idMember: idMember, known: known, memberWord: memberWord)
        let values: [Element]
        do {
            values = try JSONDecoder().decode([Element].self, from: data)
        } catch {
            throw Problem(description: describe(error, in: written))
        }
        return zip(values, written).map { (value: $0, entry: $1) }
    }

    /// A decoder's complaint about `entries`, naming the entry and the member.
    static func describe(_ error: any Error, in entries: [Entry]) -> String {
        let context: DecodingError.Context
        let complaint: String
        switch error as? DecodingError {
        case .typeMismatch(let type, let found)?:
            context = found
            complaint = found.codingPath.count > 2 ? "must be an array of strings" : "must be \(Self.phrase(type))"
        case .valueNotFound(let type, let found)?:
            context = found
            complaint = found.codingPath.count > 2 ? "must be an array of strings" : "must be \(Self.phrase(type)), not null"
        case .keyNotFound(let key, let found)?:
            context = DecodingError.Context(codingPath: found.codingPath + [key], debugDescription: "")
            complaint = "is missing"
        default:
            return "is not valid JSON"
        }
        let path = context.codingPath
        guard let index = path.first?.intValue, entries.indices.contains(index), path.count > 1 else {
            return "has a value of the wrong type"
        }
        return "\(entries[index].label): \(path[1].stringValue) \(complaint)"
    }

    /// What a member of `type` must be; every array in these files is an array of strings.
    private static func phrase(_ type: Any.Type) -> String {
        let name = String(describing: type)
        return switch name {
        case "String": "a string"
        case "Bool": "true or false"
        case _ where name.hasPrefix("Array"): "an array of strings"
        default: "of another type"
        }
    }

    private static func lineAndColumn(of offset: Int, in bytes: [UInt8]) -> (Int, Int) {
        let before = bytes[..<min(offset, bytes.count)]
        let line = before.count { $0 == UInt8(ascii: "\n") } + 1
        let lineStart = before.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0
        // Columns count characters, not bytes: continuation bytes of UTF-8 are skipped.
        let column = before[lineStart...].count { $0 & 0xC0 != 0x80 } + 1
        return (line, column)
    }

    /// RFC 8259's grammar by recursive descent, nesting bounded so that no file can exhaust the stack.
    private struct Scanner {
        enum Failure: Error {
            case notAnArray(String)
            case syntax(Int, String)
        }

        struct Element {
            /// What it is, in words ("an object", "a string").
            var kind: String
            /// nil: not an object.
            var memberNames: [String]?
            var id: String?
            var nullMembers: [String] = []
        }

        static let maximumDepth = 32

        let bytes: [UInt8]
        let idMember: String
        var index = 0

        init(bytes: [UInt8], idMember: String) {
            self.bytes = bytes
            self.idMember = idMember
        }

        mutating func document() throws(Failure) -> [Element] {
            skipWhitespace()
            guard peek == UInt8(ascii: "[") else {
                let kind = try value(depth: 0).kind
                skipWhitespace()
                guard index == bytes.count else { throw .syntax(index, "more after the value") }
                throw .notAnArray(kind)
            }
            index += 1
            var elements: [Element] = []
            skipWhitespace()
            if peek != UInt8(ascii: "]") {
                while true {
                    skipWhitespace()
                    elements.append(try value(depth: 1))
                    skipWhitespace()
                    if try separator(closing: UInt8(ascii: "]")) { break }
                }
            }
            index += 1
            skipWhitespace()
            guard index == bytes.count else { throw .syntax(index, "more after the array") }
            return elements
        }

        /// A document that is one object; anything else is `notAnArray` with what it is.
        mutating func object() throws(Failure) -> Element {
            skipWhitespace()
            let element = try value(depth: 0)
            skipWhitespace()
            guard index == bytes.count else { throw .syntax(index, "more after the value") }
            guard element.memberNames != nil else { throw .notAnArray(element.kind) }
            return element
        }

        private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

        /// After a value inside `[…]` or `{…}`: a comma that another value must follow, or the
        /// closing bracket (true).
        private mutating func separator(closing: UInt8) throws(Failure) -> Bool {
            switch peek {
            case closing:
                return true
            case UInt8(ascii: ","):
                index += 1
                skipWhitespace()
                if peek == UInt8(ascii: "]") || peek == UInt8(ascii: "}") {
                    throw .syntax(index, "a trailing comma before '\(Character(Unicode.Scalar(bytes[index])))'")
                }
                return false
            case nil:
                throw .syntax(index, "the file ends inside \(closing == UInt8(ascii: "]") ? "an array" : "an object")")
            default:
                throw .syntax(index, "expected ',' or '\(Character(Unicode.Scalar(closing)))'")
            }
        }

        private mutating func value(depth: Int) throws(Failure) -> Element {
            guard depth <= Self.maximumDepth else { throw .syntax(index, "nested more than \(Self.maximumDepth) deep") }
            switch peek {
            case UInt8(ascii: "{"):
                return try object(depth: depth)
            case UInt8(ascii: "["):
                index += 1
                skipWhitespace()
                if peek != UInt8(ascii: "]") {
                    while true {
                        skipWhitespace()
                        _ = try value(depth: depth + 1)
                        skipWhitespace()
                        if try separator(closing: UInt8(ascii: "]")) { break }
                    }
                }
                index += 1
                return Element(kind: "an array")
            case UInt8(ascii: "\""):
                _ = try string()
                return Element(kind: "a string")
            case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
                for word in ["true", "false", "null"] where bytes[index...].starts(with: word.utf8) {
                    index += word.utf8.count
                    return Element(kind: word == "null" ? "null" : "true or false")
                }
                throw .syntax(index, "not a JSON value")
            case let byte? where byte == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte):
                try number()
                return Element(kind: "a number")
            case nil:
                throw .syntax(index, "the file ends where a value should be")
            default:
                throw .syntax(index, "not a JSON value")
            }
        }

        private mutating func object(depth: Int) throws(Failure) -> Element {
            index += 1
            var names: [String] = []
            var nullMembers: [String] = []
            var id: String?
            skipWhitespace()
            if peek != UInt8(ascii: "}") {
                while true {
                    skipWhitespace()
                    guard peek == UInt8(ascii: "\"") else { throw .syntax(index, "expected a member name in double quotes") }
                    let name = try string()
                    skipWhitespace()
                    guard peek == UInt8(ascii: ":") else { throw .syntax(index, "expected ':' after the member name") }
                    index += 1
                    skipWhitespace()
                    if name == idMember, peek == UInt8(ascii: "\"") {
                        let start = index
                        let text = try string()
                        if !text.isEmpty, !names.contains(name) { id = text }
                        index = start
                    }
                    if try value(depth: depth + 1).kind == "null" { nullMembers.append(name) }
                    names.append(name)
                    skipWhitespace()
                    if try separator(closing: UInt8(ascii: "}")) { break }
                }
            }
            index += 1
            return Element(kind: "an object", memberNames: names, id: id, nullMembers: nullMembers)
        }

        /// A string token, unescaped; a raw control character or an unknown escape is refused (§7).
        private mutating func string() throws(Failure) -> String {
            let start = index
            index += 1
            var escaped = false
            while let byte = peek {
                switch byte {
                case UInt8(ascii: "\""):
                    index += 1
                    let token = Data(bytes[start..<index])
                    if !escaped { return String(decoding: token.dropFirst().dropLast(), as: UTF8.self) }
                    guard let text = (try? JSONSerialization.jsonObject(with: token, options: .fragmentsAllowed)) as? String else {
                        throw .syntax(start, "a string with an invalid escape")
                    }
                    return text
                case UInt8(ascii: "\\"):
                    escaped = true
                    guard index + 1 < bytes.count else { throw .syntax(start, "a string that is never closed") }
                    let next = bytes[index + 1]
                    if next == UInt8(ascii: "u") {
                        let digits = bytes[(index + 2)...].prefix(4)
                        guard digits.count == 4, digits.allSatisfy({ Character(Unicode.Scalar($0)).isHexDigit }) else {
                            throw .syntax(index, "an invalid \\u escape")
                        }
                        index += 6
                    } else {
                        guard Array(#""\/bfnrt"#.utf8).contains(next) else { throw .syntax(index, "an invalid escape") }
                        index += 2
                    }
                case 0x00..<0x20:
                    throw .syntax(index, "a control character inside a string (escape it)")
                default:
                    index += 1
                }
            }
            throw .syntax(start, "a string that is never closed")
        }

        /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?` (§6).
        private mutating func number() throws(Failure) {
            let start = index
            func digits(_ scanner: inout Scanner) -> Int {
                let from = scanner.index
                while let byte = scanner.peek, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { scanner.index += 1 }
                return scanner.index - from
            }
            if peek == UInt8(ascii: "-") { index += 1 }
            if peek == UInt8(ascii: "0") {
                index += 1
            } else if digits(&self) == 0 {
                throw .syntax(start, "not a JSON number")
            }
            if peek == UInt8(ascii: ".") {
                index += 1
                guard digits(&self) > 0 else { throw .syntax(start, "not a JSON number") }
            }
            if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
                index += 1
                if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
                guard digits(&self) > 0 else { throw .syntax(start, "not a JSON number") }
            }
            if let byte = peek, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: ".") {
                throw .syntax(start, "not a JSON number")
            }
        }

        private mutating func skipWhitespace() {
            while let byte = peek, [0x20, 0x09, 0x0A, 0x0D].contains(byte) { index += 1 }
        }
    }
}
