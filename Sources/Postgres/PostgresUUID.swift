import Foundation

/// The server's `uuid` text (the hyphenated 8-4-4-4-12 hex form RFC 9562 §4 writes) read by hand.
/// Foundation's `UUID(uuidString:)` reads it with `sscanf`, sixteen conversions a call, and
/// a refresh reads two (docs/performance.md, "What was tried").
enum PostgresUUID {
    /// The UUID, or nil for anything but 36 characters of hex digits (either case) with hyphens at
    /// 8, 13, 18 and 23: what `UUID(uuidString:)` accepts, which the tests hold this to, but for
    /// the sign or space its `sscanf` lets into a pair of digits.
    static func parse(_ text: String) -> UUID? {
        var text = text
        return text.withUTF8 { utf8 -> UUID? in
            guard utf8.count == 36 else { return nil }
            var bytes = [UInt8](repeating: 0, count: 16)
            var index = 0
            for byteIndex in 0..<16 {
                if index == 8 || index == 13 || index == 18 || index == 23 {
                    guard utf8[index] == UInt8(ascii: "-") else { return nil }
                    index += 1
                }
                guard let high = PostgresHex.nibble(utf8[index]), let low = PostgresHex.nibble(utf8[index + 1]) else { return nil }
                bytes[byteIndex] = high << 4 | low
                index += 2
            }
            return UUID(uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
        }
    }
}
