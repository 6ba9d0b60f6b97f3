/// Builds the redirects of the hosted flow: parameters added to a registered URI's query
/// (RFC 6749 §4.1.2, §4.1.2.1; RP-Initiated Logout §3), each percent-encoded, so nothing a client
/// or Apple sent can add a parameter or break out of its value.
public enum RedirectURI {
    /// `uri` with `parameters` appended to its query, in order; nil values are left out.
    public static func adding(_ parameters: [(String, String?)], to uri: String) -> String {
        let pairs = parameters.compactMap { name, value in value.map { encode(name) + "=" + encode($0) } }
        guard !pairs.isEmpty else { return uri }
        // RFC 3986's delimiters are bytes: a `#` or `?` followed by a combining mark is one Swift
        // `Character`, which Character-wise searching would not see.
        let bytes = Array(uri.utf8)
        let hash = bytes.firstIndex(of: UInt8(ascii: "#")) ?? bytes.endIndex
        let base = bytes[..<hash], fragment = bytes[hash...]
        let separator = base.contains(UInt8(ascii: "?"))
            ? (base.last == UInt8(ascii: "?") || base.last == UInt8(ascii: "&") ? "" : "&")
            : "?"
        return String(decoding: base, as: UTF8.self) + separator + pairs.joined(separator: "&")
            + String(decoding: fragment, as: UTF8.self)
    }

    /// RFC 3986 §2.3: only unreserved characters stay as they are.
    public static func encode(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                result += "%" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            }
        }
        return result
    }
}
