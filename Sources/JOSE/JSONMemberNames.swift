import Foundation

/// The member names of a JSON object, as written, for the one check JSON decoders do not make:
/// RFC 7515 §4 requires header parameter names to be unique, and a parser that silently keeps
/// one of two `alg` members invites two implementations to read two different headers (RFC 8725
/// §2.7 / §3.1). A small scanner of the top level only; nested values are skipped without
/// recursion, so no input can exhaust the stack.
enum JSONMemberNames {
    /// The top-level member names of the object in `data`, unescaped, in order; nil when `data`
    /// is not a single JSON object (the decoder refuses it anyway).
    static func topLevel(_ data: Data) -> [String]? {
        var scanner = Scanner(bytes: Array(data))
        return scanner.objectMemberNames()
    }

    /// Whether `data` is an object with a member name that appears twice.
    static func hasDuplicates(_ data: Data) -> Bool {
        guard let names = topLevel(data) else { return false }
        return Set(names).count != names.count
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        init(bytes: [UInt8]) {
            self.bytes = bytes
        }

        mutating func objectMemberNames() -> [String]? {
            skipWhitespace()
            guard consume(UInt8(ascii: "{")) else { return nil }
            var names: [String] = []
            skipWhitespace()
            if consume(UInt8(ascii: "}")) { return atEnd() ? names : nil }
            while true {
                skipWhitespace()
                guard let name = string() else { return nil }
                names.append(name)
                skipWhitespace()
                guard consume(UInt8(ascii: ":")), skipValue() else { return nil }
                skipWhitespace()
                if consume(UInt8(ascii: ",")) { continue }
                guard consume(UInt8(ascii: "}")) else { return nil }
                return atEnd() ? names : nil
            }
        }

        private mutating func atEnd() -> Bool {
            skipWhitespace()
            return index == bytes.count
        }

        private mutating func skipWhitespace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        private mutating func consume(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        /// A string token, unescaped by Foundation (so `"al\u0067"` is `alg`).
        private mutating func string() -> String? {
            let start = index
            guard skipString() else { return nil }
            let token = Data(bytes[start..<index])
            if !token.contains(UInt8(ascii: "\\")) {
                return String(decoding: token.dropFirst().dropLast(), as: UTF8.self)
            }
            return (try? JSONSerialization.jsonObject(with: token, options: .fragmentsAllowed)) as? String
        }

        private mutating func skipString() -> Bool {
            guard consume(UInt8(ascii: "\"")) else { return false }
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\\"): index += 2
                case UInt8(ascii: "\""):
                    index += 1
                    return true
                default: index += 1
                }
            }
            return false
        }

        /// Skips one value: a string, a scalar, or a whole object or array by counting brackets.
        private mutating func skipValue() -> Bool {
            skipWhitespace()
            guard index < bytes.count else { return false }
            switch bytes[index] {
            case UInt8(ascii: "\""):
                return skipString()
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                var depth = 0
                while index < bytes.count {
                    switch bytes[index] {
                    case UInt8(ascii: "\""):
                        guard skipString() else { return false }
                        continue
                    case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"):
                        depth -= 1
                        if depth == 0 {
                            index += 1
                            return true
                        }
                    default: break
                    }
                    index += 1
                }
                return false
            default:
                let start = index
                while index < bytes.count, ![UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x09, 0x0A, 0x0D]
                    .contains(bytes[index]) {
                    index += 1
                }
                return index > start
            }
        }
    }
}
