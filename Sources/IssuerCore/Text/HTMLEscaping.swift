/// Text put into HTML, escaped: the issuer's own pages (docs/reference.md, "Hosted sign-in" and
/// "Logout") and the `issuer dev` stand-ins' sign-in pages echo parameters a caller chose.
public enum HTMLEscaping {
    /// `text` with the five significant characters (`&`, `<`, `>`, `"`, `'`) escaped, safe in an
    /// element's text and in a quoted attribute value.
    public static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        // Scalar by scalar: a quote followed by a combining mark is one Swift `Character`, and
        // must still be escaped.
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}
