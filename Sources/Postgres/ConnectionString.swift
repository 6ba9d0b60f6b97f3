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
    static func redactQuoted(_ message: String) -> String {
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
