import Foundation

extension UUID {
    /// The hyphenated lowercase form (RFC 9562 §4: "output as lowercase"), the `sub` and `sid` of
    /// every token: `uuidString.lowercased()` without Foundation's `snprintf` and a Unicode
    /// lowercasing, on every token request (docs/performance.md, "What was tried").
    public var lowercaseText: String {
        let hex: StaticString = "0123456789abcdef"
        return withUnsafeBytes(of: uuid) { bytes in
            hex.withUTF8Buffer { hex in
                String(unsafeUninitializedCapacity: 36) { output in
                    var written = 0
                    for (index, byte) in bytes.enumerated() {
                        if index == 4 || index == 6 || index == 8 || index == 10 {
                            output[written] = UInt8(ascii: "-")
                            written += 1
                        }
                        output[written] = hex[Int(byte >> 4)]
                        output[written + 1] = hex[Int(byte & 0x0F)]
                        written += 2
                    }
                    return written
                }
            }
        }
    }
}
