/// The stand-ins' sign-in pages (`issuer dev apple`, `issuer dev google`): development only,
/// but still escaped, scalar by scalar, as the issuer's own pages are.
enum DevPage {
    /// HTML text and attribute escaping of the five significant characters.
    static func escape(_ text: String) -> String {
        var escaped = ""
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
