import CLibPQ
import Foundation

/// libpq's own parser of connection strings, so that a malformed `ISSUER_DATABASE_URL` is refused
/// at start with libpq's reason rather than on the first request.
public enum ConnectionString {
    /// Nil if libpq accepts `conninfo` (URI or key=value form), else libpq's complaint with every
    /// quoted excerpt of the input removed: the string may hold a password.
    public static func problem(in conninfo: String) -> String? {
        var errorMessage: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(conninfo, &errorMessage) else {
            defer { if let errorMessage { PQfreemem(errorMessage) } }
            guard let errorMessage else { return "out of memory" }
            return redactQuoted(String(cString: errorMessage).trimmingCharacters(in: .whitespacesAndNewlines))
        }
        PQconninfoFree(options)
        return invalidValue(in: conninfo)
    }

    /// The values libpq checks only when it connects, checked here so that a wrong one is a
    /// configuration error at start (never a connect failure, which a missing socket also is).
    /// Messages name the option, never its value: a URI with an unescaped `:` or `@` in its
    /// password puts part of the password in `port`.
    static let enumerated: [String: [String]] = [
        "sslmode": ["disable", "allow", "prefer", "require", "verify-ca", "verify-full"],
        "gssencmode": ["disable", "prefer", "require"],
        "channel_binding": ["disable", "prefer", "require"],
        "target_session_attrs": ["any", "read-write", "read-only", "primary", "standby", "prefer-standby"],
        "load_balance_hosts": ["disable", "random"],
    ]

    static func invalidValue(in conninfo: String) -> String? {
        for (keyword, allowed) in enumerated.sorted(by: { $0.key < $1.key }) {
            if let value = value(of: keyword, in: conninfo), !allowed.contains(value) {
                return "\(keyword) must be one of \(allowed.joined(separator: ", "))"
            }
        }
        for keyword in ["port", "connect_timeout", "keepalives", "keepalives_idle", "keepalives_interval", "keepalives_count"] {
            guard let value = value(of: keyword, in: conninfo) else { continue }
            let items = keyword == "port" ? value.split(separator: ",", omittingEmptySubsequences: false).map(String.init) : [value]
            if items.contains(where: { !$0.isEmpty && !$0.allSatisfy(\.isASCIIDigit) }) {
                return "\(keyword) must be a number (a password with an unescaped ':' or '@' in a URI ends up there: percent-encode it)"
            }
        }
        return nil
    }

    /// The value `conninfo` gives `keyword`, if it names it, read by libpq's own parser (both
    /// forms); nil for an unparsable string. Defaults and environment variables are not applied.
    public static func value(of keyword: String, in conninfo: String) -> String? {
        guard let parsed = PQconninfoParse(conninfo, nil) else { return nil }
        defer { PQconninfoFree(parsed) }
        var option = parsed
        while let name = option.pointee.keyword {
            if String(cString: name) == keyword, let value = option.pointee.val {
                return String(cString: value)
            }
            option += 1
        }
        return nil
    }

    /// libpq quotes the offending part of the input in double quotes.
    public static func redactQuoted(_ message: String) -> String {
        var result = ""
        var inQuote = false
        for character in message {
            if character == "\"" {
                result += inQuote ? "…\"" : "\""
                inQuote.toggle()
            } else if !inQuote {
                result.append(character)
            }
        }
        return result
    }
}

private extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
