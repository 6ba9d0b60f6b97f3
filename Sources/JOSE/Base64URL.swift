import Foundation

/// Base64url without padding, as required for every JWS segment by RFC 7515 §2 (alphabet from RFC 4648 §5).
///
/// Decoding is strict on purpose: a JWS has exactly one valid serialization of each segment, and accepting
/// padding, foreign characters or non-canonical trailing bits (RFC 4648 §3.5) would let several distinct
/// strings verify as the same token, which breaks replay caches and token-hash comparisons.
public enum Base64URL {
    /// Encodes bytes as unpadded base64url (RFC 7515 §2).
    public static func encode(_ bytes: some DataProtocol) -> String {
        let standard = Data(bytes).base64EncodedData()
        // Translated through a raw buffer: iterating `Data` byte by byte is measurable on the signing path.
        return standard.withUnsafeBytes { raw in
            String(unsafeUninitializedCapacity: raw.count) { output in
                var count = 0
                for byte in raw {
                    switch byte {
                    case UInt8(ascii: "+"): output[count] = UInt8(ascii: "-")
                    case UInt8(ascii: "/"): output[count] = UInt8(ascii: "_")
                    case UInt8(ascii: "="): continue
                    default: output[count] = byte
                    }
                    count += 1
                }
                return count
            }
        }
    }

    /// Decodes unpadded base64url (RFC 7515 §2), returning `nil` for anything that is not its canonical form.
    public static func decode(_ string: some StringProtocol) -> Data? {
        decode(utf8: string.utf8)
    }

    /// Decodes unpadded base64url (RFC 7515 §2) given as UTF-8 bytes; the JWS parser works on bytes to avoid String copies.
    public static func decode(utf8 encoded: some Collection<UInt8>) -> Data? {
        let remainder = encoded.count % 4
        // One leftover character carries only 6 bits, which cannot form a byte (RFC 4648 §4).
        guard remainder != 1 else { return nil }
        var standard = [UInt8]()
        standard.reserveCapacity(encoded.count + 2)
        var lastValue: UInt8 = 0
        for byte in encoded {
            guard let value = sextet(byte) else { return nil }
            lastValue = value
            switch byte {
            case UInt8(ascii: "-"): standard.append(UInt8(ascii: "+"))
            case UInt8(ascii: "_"): standard.append(UInt8(ascii: "/"))
            default: standard.append(byte)
            }
        }
        // Unused low bits of the final character must be zero, otherwise the encoding is not canonical (RFC 4648 §3.5).
        if remainder == 2, lastValue & 0x0F != 0 { return nil }
        if remainder == 3, lastValue & 0x03 != 0 { return nil }
        if remainder != 0 {
            standard.append(contentsOf: repeatElement(UInt8(ascii: "="), count: 4 - remainder))
        }
        return Data(base64Encoded: Data(standard))
    }

    /// Maps a base64url character to its 6-bit value, rejecting everything outside the RFC 4648 §5 alphabet.
    private static func sextet(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "-"): 62
        case UInt8(ascii: "_"): 63
        default: nil
        }
    }
}
