/// Builds the redirects of the hosted flow: parameters added to a registered URI's query
/// (RFC 6749 §4.1.2, §4.1.2.1; RP-Initiated Logout §3), each percent-encoded, so nothing a client
/// or Apple sent can add a parameter or break out of its value.
public enum RedirectURI {
    /// `uri` with `parameters` appended to its query, in order; nil values are left out.
    public static func adding(_ parameters: [(String, String?)], to uri: String) -> String {
        let pairs = parameters.compactMap { name, value in value.map { encode(name) + "=" + encode($0) } }
        guard !pairs.isEmpty else { return uri }
        let (base, fragment) = split(uri)
        let separator = base.contains("?") ? (base.hasSuffix("?") || base.hasSuffix("&") ? "" : "&") : "?"
        return base + separator + pairs.joined(separator: "&") + fragment
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

    private static func split(_ uri: String) -> (String, String) {
        guard let hash = uri.firstIndex(of: "#") else { return (uri, "") }
        return (String(uri[..<hash]), String(uri[hash...]))
    }
}
