/// The head of a request that `ReadyAnswerHandler` may answer from ready bytes, read straight
/// from what the socket delivered, before NIO's HTTP/1 decoder: `GET <origin-form> HTTP/1.1`,
/// exactly one `Host` (RFC 9112 §3.2), at most `Connection: keep-alive`, and no body.
///
/// It accepts a strict subset of RFC 9112's grammar and nothing it is unsure of: every field line
/// is `token ":" OWS visible-ASCII OWS CRLF`, with no obs-fold and no bare LF. Anything else —
/// another method or version, a field that frames a body or changes the connection
/// (`Content-Length`, `Transfer-Encoding`, `Upgrade`, `Expect`, any `Connection` option but
/// keep-alive, `Proxy-Connection`, which NIO's parser reads as `Connection`), more than
/// `maxFieldLines` field lines, a head longer than `maxLength` or not yet complete — is no
/// `PlainGetHead`, and the caller hands the bytes to the full parser, which decides about them as
/// it always has. So a request read here is one NIO's decoder would read the same way
/// (Fuzz/PlainGetHead holds it to that), and the rules it cannot be held to here are refused by
/// leaving the request to the decoder.
package struct PlainGetHead: Equatable {
    /// The request target as sent, query included (origin-form, RFC 9112 §3.2.1).
    package let target: String
    /// The `If-None-Match` field lines joined as one list (RFC 9110 §5.3), nil without any.
    package let ifNoneMatch: String?
    /// Bytes of the head, its empty last line included: where the next request starts.
    package let length: Int

    /// The longest head read here; a longer one goes to the decoder, whose limits apply.
    package static let maxLength = 4096
    /// The most field lines read here, below the decoder's limit (`IssuerHTTP1Channel`'s, 1000).
    package static let maxFieldLines = 100

    /// Reads a head at the start of `bytes`; nil when `bytes` do not start with a complete plain GET head.
    package init?(_ bytes: UnsafeRawBufferPointer) {
        var reader = Reader(bytes: bytes.prefix(Self.maxLength))
        guard reader.skip("GET "), let target = reader.target(), reader.skip(" HTTP/1.1\r\n") else { return nil }
        var hosts = 0
        var conditions: [String] = []
        var lines = 0
        // Names and values are compared as bytes where they are: a `String` is made only of what
        // is kept (the target and `If-None-Match`), since this runs for every static GET.
        while !reader.skip("\r\n") {
            lines += 1
            guard lines <= Self.maxFieldLines, let (name, value) = reader.fieldLine() else { return nil }
            if reader.equalsIgnoringCase(name, "host") {
                // RFC 9112 §3.2: one Host, and a comma is no list separator there but an invalid value.
                guard !reader.contains(value, UInt8(ascii: ",")) else { return nil }
                hosts += 1
            } else if reader.equalsIgnoringCase(name, "connection") {
                guard reader.equalsIgnoringCase(value, "keep-alive") else { return nil }
            } else if reader.equalsIgnoringCase(name, "if-none-match") {
                conditions.append(reader.string(value))
            } else if reader.equalsIgnoringCase(name, "content-length") || reader.equalsIgnoringCase(name, "transfer-encoding")
                || reader.equalsIgnoringCase(name, "upgrade") || reader.equalsIgnoringCase(name, "expect")
                || reader.equalsIgnoringCase(name, "proxy-connection")
            {
                return nil
            }
        }
        guard hosts == 1 else { return nil }
        self.target = target
        self.ifNoneMatch = conditions.isEmpty ? nil : conditions.joined(separator: ", ")
        self.length = reader.offset
    }

    /// A cursor over the head's bytes that only moves forward on a match.
    private struct Reader {
        let bytes: UnsafeRawBufferPointer.SubSequence
        var offset = 0

        init(bytes: UnsafeRawBufferPointer.SubSequence) {
            self.bytes = bytes
        }

        private func byte(at index: Int) -> UInt8? {
            index < bytes.count ? bytes[bytes.startIndex + index] : nil
        }

        mutating func skip(_ literal: StaticString) -> Bool {
            let count = literal.utf8CodeUnitCount
            guard offset + count <= bytes.count else { return false }
            for index in 0..<count where bytes[bytes.startIndex + offset + index] != literal.utf8Start[index] {
                return false
            }
            offset += count
            return true
        }

        /// RFC 9112 §3.2.1's origin-form: an absolute path and a query, of RFC 3986's path and
        /// query characters only (pchar, "/" and "?", which also covers pct-encoded's "%").
        mutating func target() -> String? {
            guard byte(at: offset) == UInt8(ascii: "/") else { return nil }
            let start = offset
            while let byte = byte(at: offset), Self.isTargetByte(byte) { offset += 1 }
            return string(start..<offset)
        }

        /// `token ":" OWS value OWS CRLF` (RFC 9112 §5): where the name and the value (without the
        /// whitespace around it) lie.
        mutating func fieldLine() -> (name: Range<Int>, value: Range<Int>)? {
            let nameStart = offset
            while let byte = byte(at: offset), Self.isTokenByte(byte) { offset += 1 }
            guard offset > nameStart, byte(at: offset) == UInt8(ascii: ":") else { return nil }
            let name = nameStart..<offset
            offset += 1
            var valueStart = offset
            var valueEnd = offset
            while let byte = byte(at: offset), byte != UInt8(ascii: "\r") {
                let whitespace = byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
                guard whitespace || (byte > 0x20 && byte < 0x7F) else { return nil }
                offset += 1
                if whitespace {
                    if valueStart == offset - 1 { valueStart = offset }
                } else {
                    valueEnd = offset
                }
            }
            guard skip("\r\n") else { return nil }
            return (name, valueEnd > valueStart ? valueStart..<valueEnd : valueStart..<valueStart)
        }

        /// Whether the bytes in `range` are `literal` (lower-case ASCII) but for the case of letters.
        func equalsIgnoringCase(_ range: Range<Int>, _ literal: StaticString) -> Bool {
            guard range.count == literal.utf8CodeUnitCount else { return false }
            for index in 0..<range.count {
                // ASCII letters differ from their lower case by the 0x20 bit alone; the literal's
                // other bytes ('-') must match exactly, which setting that bit cannot fake.
                let byte = bytes[bytes.startIndex + range.lowerBound + index]
                let expected = literal.utf8Start[index]
                guard byte == expected || (Self.isUpperCaseLetter(byte) && byte | 0x20 == expected) else { return false }
            }
            return true
        }

        func contains(_ range: Range<Int>, _ byte: UInt8) -> Bool {
            range.contains { bytes[bytes.startIndex + $0] == byte }
        }

        func string(_ range: Range<Int>) -> String {
            String(decoding: bytes[(bytes.startIndex + range.lowerBound)..<(bytes.startIndex + range.upperBound)], as: UTF8.self)
        }

        private static func isUpperCaseLetter(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
        }

        /// Written as a switch rather than a search of a string of the characters, which costs a
        /// walk of that string for every byte of every head.
        private static func isTargetByte(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "%"),
                UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("),
                UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"),
                UInt8(ascii: "="), UInt8(ascii: ":"), UInt8(ascii: "@"), UInt8(ascii: "/"), UInt8(ascii: "?"):
                return true
            default:
                return isAlphanumeric(byte)
            }
        }

        /// RFC 9110 §5.6.2's tchar.
        private static func isTokenByte(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
                UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
                return true
            default:
                return isAlphanumeric(byte)
            }
        }

        private static func isAlphanumeric(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
    }
}
