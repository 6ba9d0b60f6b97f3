import Foundation

/// Base64url without padding, as required for every JWS segment by RFC 7515 §2 (alphabet from RFC 4648 §5).
///
/// Decoding is strict on purpose: a JWS has exactly one valid serialization of each segment, and accepting
/// padding, foreign characters or non-canonical trailing bits (RFC 4648 §3.5) would let several distinct
/// strings verify as the same token, which breaks replay caches and token-hash comparisons.
public enum Base64URL {
    /// Encodes bytes as unpadded base64url (RFC 7515 §2).
    public static func encode(_ bytes: some DataProtocol) -> String {
        if let encoded = bytes.withContiguousStorageIfAvailable({ encode(contiguous: $0) }) { return encoded }
        return Array(bytes).withUnsafeBufferPointer { encode(contiguous: $0) }
    }

    /// RFC 4648 §5, every three bytes four characters, the last group without padding. Written
    /// straight into the string: through `Data.base64EncodedData` and a translation, the encoding
    /// of a token's three segments was measurable on every token request (docs/performance.md).
    private static func encode(contiguous bytes: UnsafeBufferPointer<UInt8>) -> String {
        let (groups, rest) = bytes.count.quotientAndRemainder(dividingBy: 3)
        return String(unsafeUninitializedCapacity: groups * 4 + (rest == 0 ? 0 : rest + 1)) { output in
            alphabet.withUTF8Buffer { alphabet in
                var read = 0
                var written = 0
                for _ in 0..<groups {
                    let word = UInt32(bytes[read]) << 16 | UInt32(bytes[read + 1]) << 8 | UInt32(bytes[read + 2])
                    output[written] = alphabet[Int(word >> 18)]
                    output[written + 1] = alphabet[Int(word >> 12 & 0x3F)]
                    output[written + 2] = alphabet[Int(word >> 6 & 0x3F)]
                    output[written + 3] = alphabet[Int(word & 0x3F)]
                    read += 3
                    written += 4
                }
                if rest > 0 {
                    let word = UInt32(bytes[read]) << 16 | (rest == 2 ? UInt32(bytes[read + 1]) << 8 : 0)
                    output[written] = alphabet[Int(word >> 18)]
                    output[written + 1] = alphabet[Int(word >> 12 & 0x3F)]
                    written += 2
                    if rest == 2 {
                        output[written] = alphabet[Int(word >> 6 & 0x3F)]
                        written += 1
                    }
                }
                return written
            }
        }
    }

    private static let alphabet: StaticString = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

    /// Decodes unpadded base64url (RFC 7515 §2), returning `nil` for anything that is not its canonical form.
    public static func decode(_ string: some StringProtocol) -> Data? {
        decode(utf8: string.utf8)
    }

    /// Decodes unpadded base64url (RFC 7515 §2) given as UTF-8 bytes; the JWS parser works on bytes to avoid String copies.
    public static func decode(utf8 encoded: some Collection<UInt8>) -> Data? {
        if let decoded = encoded.withContiguousStorageIfAvailable({ decode(contiguous: $0) }) { return decoded }
        return Array(encoded).withUnsafeBufferPointer { decode(contiguous: $0) }
    }

    /// Four characters to three bytes straight from the alphabet: every JWS, DPoP proof and provider token is
    /// decoded here, and a detour through padded standard base64 and Foundation cost more than the rest of parsing.
    private static func decode(contiguous input: UnsafeBufferPointer<UInt8>) -> Data? {
        let remainder = input.count % 4
        // One leftover character carries only 6 bits, which cannot form a byte (RFC 4648 §4).
        guard remainder != 1 else { return nil }
        let whole = input.count - remainder
        var output = Data(count: whole / 4 * 3 + max(remainder - 1, 0))
        let decoded = output.withUnsafeMutableBytes { (out: UnsafeMutableRawBufferPointer) -> Bool in
            var read = 0
            var written = 0
            while read < whole {
                guard let a = sextet(input[read]), let b = sextet(input[read + 1]),
                    let c = sextet(input[read + 2]), let d = sextet(input[read + 3])
                else { return false }
                out[written] = a << 2 | b >> 4
                out[written + 1] = b << 4 | c >> 2
                out[written + 2] = c << 6 | d
                read += 4
                written += 3
            }
            switch remainder {
            case 2:
                guard let a = sextet(input[read]), let b = sextet(input[read + 1]),
                    // Unused low bits of the final character must be zero, otherwise the encoding is not
                    // canonical (RFC 4648 §3.5).
                    b & 0x0F == 0
                else { return false }
                out[written] = a << 2 | b >> 4
            case 3:
                guard let a = sextet(input[read]), let b = sextet(input[read + 1]), let c = sextet(input[read + 2]),
                    c & 0x03 == 0
                else { return false }
                out[written] = a << 2 | b >> 4
                out[written + 1] = b << 4 | c >> 2
            default:
                break
            }
            return true
        }
        return decoded ? output : nil
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
