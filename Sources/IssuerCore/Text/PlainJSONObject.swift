import Foundation

/// A JSON object (RFC 8259 §4) of the plainest kind, read without a general JSON parser: one
/// object whose members are names and strings of printable ASCII (two-character escapes such as
/// `\/` allowed, `\u` not), and integers of at most 15 digits; no literal (`true`, `null`),
/// fraction, exponent, array or nested object, and no name twice. Anything else is nil, and the
/// caller reads it with `JSONDecoder` as it would have: the subset exists to read what clients
/// send every request (a DPoP proof's claims, RFC 9449 §4.2) without JSONDecoder's cost, never to
/// read anything differently.
/// Fuzz/PlainJSONObject holds every object it accepts to Foundation's reading of the same bytes.
package struct PlainJSONObject: Sendable {
    package enum Value: Sendable, Equatable {
        case string(String)
        case integer(Int64)
    }

    /// The most digits an integer may have: every such integer is exact as a Double, as
    /// JSONDecoder reads a number into one.
    package static let maxDigits = 15
    /// The most members: a proof's claims are six at most. Few enough that finding a name, or a
    /// name twice, by a linear scan costs less than hashing (and a payload of thousands of
    /// members goes to JSONDecoder, not to a quadratic scan).
    package static let maxMembers = 16

    /// The members in the order they came, every name once.
    private let pairs: [(name: String, value: Value)]

    /// Nil unless `data` is, whole, an object of the plain kind.
    package init?(_ data: Data) {
        guard let pairs = data.withUnsafeBytes({ bytes in
            var reader = Reader(bytes: bytes)
            return reader.object()
        }) else { return nil }
        self.pairs = pairs
    }

    /// The value of the member `name`, if there is one.
    package subscript(name: String) -> Value? {
        pairs.first { $0.name == name }?.value
    }

    /// Every member, by name.
    package var members: [String: Value] {
        Dictionary(uniqueKeysWithValues: pairs.map { ($0.name, $0.value) })
    }

    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var index = 0

        mutating func object() -> [(name: String, value: Value)]? {
            skipWhitespace()
            guard take(UInt8(ascii: "{")) else { return nil }
            var members: [(name: String, value: Value)] = []
            members.reserveCapacity(8)
            skipWhitespace()
            if take(UInt8(ascii: "}")) { return atEnd() ? members : nil }
            while true {
                skipWhitespace()
                guard members.count < PlainJSONObject.maxMembers, let name = string(), !members.contains(where: { $0.name == name })
                else { return nil }
                skipWhitespace()
                guard take(UInt8(ascii: ":")) else { return nil }
                skipWhitespace()
                guard let value = value() else { return nil }
                members.append((name, value))
                skipWhitespace()
                if take(UInt8(ascii: ",")) { continue }
                guard take(UInt8(ascii: "}")) else { return nil }
                return atEnd() ? members : nil
            }
        }

        private mutating func value() -> Value? {
            guard index < bytes.count else { return nil }
            if bytes[index] == UInt8(ascii: "\"") { return string().map(Value.string) }
            return integer().map(Value.integer)
        }

        /// A string of printable ASCII with at most the two-character escapes (RFC 8259 §7): what
        /// needs no UTF-8 check. `\/` is among them because most JSON writers escape every `/`
        /// (Foundation's and Android's among them), so an `htu` comes as `https:\/\/…`.
        private mutating func string() -> String? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            let start = index
            var unescaped: [UInt8]?
            while index < bytes.count {
                let byte = bytes[index]
                switch byte {
                case UInt8(ascii: "\""):
                    defer { index += 1 }
                    if let unescaped { return String(decoding: unescaped, as: UTF8.self) }
                    return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard index + 1 < bytes.count, let meant = Self.escaped(bytes[index + 1]) else { return nil }
                    if unescaped == nil { unescaped = Array(bytes[start..<index]) }
                    unescaped?.append(meant)
                    index += 2
                case 0x20..<0x7F:
                    unescaped?.append(byte)
                    index += 1
                default:
                    return nil
                }
            }
            return nil
        }

        /// What a two-character escape stands for; nil for `\u` and anything that is no escape.
        private static func escaped(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): byte
            case UInt8(ascii: "b"): 0x08
            case UInt8(ascii: "f"): 0x0C
            case UInt8(ascii: "n"): 0x0A
            case UInt8(ascii: "r"): 0x0D
            case UInt8(ascii: "t"): 0x09
            default: nil
            }
        }

        /// `-? (0 | [1-9][0-9]*)`, at most `maxDigits` digits. What follows is the caller's to
        /// check, so `1.5`, `1e3` and `01` leave a byte no member may be followed by.
        private mutating func integer() -> Int64? {
            let negative = take(UInt8(ascii: "-"))
            let start = index
            var value: Int64 = 0
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                value = value * 10 + Int64(bytes[index] - UInt8(ascii: "0"))
                index += 1
                if index - start > PlainJSONObject.maxDigits { return nil }
                if index - start == 1, value == 0 { break }
            }
            guard index > start else { return nil }
            return negative ? -value : value
        }

        private mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        private mutating func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        private mutating func atEnd() -> Bool {
            skipWhitespace()
            return index == bytes.count
        }
    }
}
