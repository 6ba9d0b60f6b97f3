/// Writes one JSON object (RFC 8259 §4) member by member, straight into bytes: the JWS headers,
/// the token claims and the token endpoint's answers, written on every token request.
///
/// `JSONEncoder` walks `Codable` through generic containers, boxes and a sort of the keys; it was
/// 12% of Issuer's own CPU per refresh (docs/performance.md, "What was tried"). Members come out in
/// the order they are written, so callers write them sorted: the bytes are then exactly those of
/// `JSONEncoder` with `.sortedKeys` and `.withoutEscapingSlashes`, which the tests check member for
/// member. Strings are escaped as RFC 8259 §7 requires and as that encoder does: `"` and `\`, the
/// two-character escapes for the controls that have one, `\u00XX` (lowercase) for the other
/// controls; everything else, `/` and non-ASCII included, is written as its UTF-8.
public struct JSONObjectWriter: Sendable {
    private var bytes: [UInt8]
    private var isEmpty = true

    /// An empty object; `capacity` is a guess of the finished size, to allocate once.
    public init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
        bytes.append(UInt8(ascii: "{"))
    }

    /// Writes `"name":"value"`; nothing when `value` is nil (as `encodeIfPresent` does).
    public mutating func string(_ name: String, _ value: String?) {
        guard let value else { return }
        startMember(name)
        Self.appendString(value, to: &bytes)
    }

    /// Writes `"name":value` in decimal; nothing when `value` is nil.
    public mutating func integer(_ name: String, _ value: Int?) {
        guard let value else { return }
        startMember(name)
        bytes.append(contentsOf: String(value).utf8)
    }

    /// Writes `"name":true` or `false`; nothing when `value` is nil.
    public mutating func boolean(_ name: String, _ value: Bool?) {
        guard let value else { return }
        startMember(name)
        bytes.append(contentsOf: value ? "true".utf8 : "false".utf8)
    }

    /// Writes `"name":{…}` with the members `body` writes; nothing when `present` is false.
    public mutating func object(_ name: String, present: Bool = true, _ body: (inout JSONObjectWriter) -> Void) {
        guard present else { return }
        startMember(name)
        var nested = JSONObjectWriter(capacity: 64)
        body(&nested)
        bytes.append(contentsOf: nested.finished())
    }

    /// The object's bytes, closed.
    public consuming func finished() -> [UInt8] {
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    private mutating func startMember(_ name: String) {
        if !isEmpty { bytes.append(UInt8(ascii: ",")) }
        isEmpty = false
        Self.appendString(name, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
    }

    /// RFC 8259 §7. A Swift `String` is valid Unicode, so its UTF-8 is copied as is but for the
    /// bytes below 0x20, `"` and `\`: no multi-byte sequence contains a byte below 0x80.
    private static func appendString(_ string: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { utf8 in
            // Identifiers, URLs and base64url, the usual values, need no escape: one copy.
            guard utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else {
                bytes.append(contentsOf: utf8)
                return
            }
            for byte in utf8 {
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), byte])
                case 0x08: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
                case 0x0C: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
                case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
                case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
                case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
                case 0x00..<0x20:
                    let hex = Array("0123456789abcdef".utf8)
                    bytes.append(contentsOf: [
                        UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)],
                    ])
                default: bytes.append(byte)
                }
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
