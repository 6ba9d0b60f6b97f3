import CLibPQ

/// Why libpq could not open a link, told apart by what an operator must do (docs/reference.md,
/// "Admin CLI"): a database that does not answer is worth waiting for; settings the server or
/// libpq refuses are not.
///
/// The server's refusal during start-up reaches libpq as an error whose SQLSTATE libpq does not
/// expose for a connection; with `PQERRORS_VERBOSE` it writes the code into the message
/// (`FATAL:  28000: role "x" does not exist`), so the decision rests on that code, never on the
/// server's (possibly translated) words.
enum ConnectFailure {
    /// SQLSTATEs that mean the settings are wrong: class 28 (the role or its password refused),
    /// 3D000 (no such database), 42501 (no `CONNECT` privilege).
    static func isMisconfiguration(sqlState: String) -> Bool {
        sqlState.hasPrefix("28") || sqlState == "3D000" || sqlState == "42501"
    }

    /// The error for libpq's message about a failed connect. Without a SQLSTATE the server never
    /// spoke (a socket missing, a name not resolving yet, a refused port): unavailability.
    static func error(_ libpqMessage: String) -> PostgresError {
        let (sqlState, message) = parse(libpqMessage)
        if let sqlState, isMisconfiguration(sqlState: sqlState) { return .misconfigured(message) }
        return .unavailable(message.isEmpty ? "cannot connect" : message)
    }

    /// The SQLSTATE a verbose message carries, and the message as one line without it and
    /// without the `LOCATION:` line (libpq's newlines and tabs would print as escapes). What
    /// libpq itself wrote has its quoted parts redacted, as `ConnectionString` does: libpq quotes
    /// parts of the settings, which may hold the password; the server's own words stay.
    static func parse(_ libpqMessage: String) -> (sqlState: String?, message: String) {
        var sqlState: String?
        var kept: [String] = []
        for line in libpqMessage.split(whereSeparator: \.isNewline) {
            if line.hasPrefix("LOCATION:") { continue }
            var text = ConnectionString.redactQuoted(String(line))
            for severity in ["FATAL:  ", "ERROR:  ", "PANIC:  "] {
                guard let range = line.range(of: severity) else { continue }
                let rest = line[range.upperBound...]
                let code = rest.prefix(5)
                if code.count == 5, code.allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber) }),
                   rest.dropFirst(5).hasPrefix(": ") {
                    sqlState = sqlState ?? String(code)
                    text = ConnectionString.redactQuoted(String(line[..<range.lowerBound])) + severity + String(rest.dropFirst(7))
                }
                break
            }
            kept.append(text)
        }
        let message = kept.joined(separator: " ").split(whereSeparator: \.isWhitespace).joined(separator: " ")
        return (sqlState, message)
    }
}
