/// The keyword/value list every connection of ours opens with (docs/design.md, "PostgreSQL through libpq"): the operator's
/// connection string, plus what makes a silent database an outage rather than a hang (docs/reference.md, "Faults and bad input").
///
/// Given to `PQconnectStartParams` with `expand_dbname`: keywords before `dbname` are defaults
/// that the operator's string (expanded in place of `dbname`) overrides; keywords after it win.
struct ConnectionParameters: Sendable {
    let keywords: [String]
    let values: [String]

    /// - Parameters:
    ///   - conninfo: the operator's URI or key=value string.
    ///   - statementTimeout: the server cancels a statement running longer than this.
    init(conninfo: String, statementTimeout: Duration) {
        // A dead peer is found within 10 s: an idle link is probed after 5 s, five probes one
        // second apart; data left unacknowledged for 10 s closes the link. libpq ignores these
        // on a Unix socket, where the kernel knows at once that the server is gone.
        let defaults: [(String, String)] = [
            ("application_name", "issuer"),
            ("keepalives", "1"),
            ("keepalives_idle", "5"),
            ("keepalives_interval", "1"),
            ("keepalives_count", "5"),
            ("tcp_user_timeout", "10000"),
        ]
        // Decoding relies on the fixed formats, so they come last and win; the statement timeout
        // comes first, so an operator's own `-c statement_timeout=…` in `options` wins over it.
        var options = "-c statement_timeout=\(Self.milliseconds(statementTimeout))"
        if let operatorOptions = ConnectionString.value(of: "options", in: conninfo), !operatorOptions.isEmpty {
            options += " " + operatorOptions
        }
        options += " -c DateStyle=ISO -c TimeZone=UTC -c bytea_output=hex"
        let all = defaults + [("dbname", conninfo), ("options", options)]
        keywords = all.map(\.0)
        values = all.map(\.1)
    }

    /// Whole milliseconds, at least one: PostgreSQL reads 0 as "no timeout".
    static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return max(1, seconds * 1000 + attoseconds / 1_000_000_000_000_000)
    }
}
