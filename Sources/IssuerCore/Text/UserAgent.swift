/// A client's `User-Agent` as the issuer keeps it: a session's label for operators (`issuer
/// sessions list`) and for the user (`/account/sessions`), never used to decide anything.
public enum UserAgent {
    /// Longer user agents are cut, not refused (docs/reference.md, "Faults and bad input").
    public static let maximumLength = 512

    /// `userAgent` cut to `maximumLength` bytes of UTF-8 and with its control characters escaped,
    /// so it can reach the database, a log line or an operator's terminal as it is.
    public static func bounded(_ userAgent: String?) -> String? {
        userAgent.map { $0.truncated(toUTF8Bytes: maximumLength).escapingControlCharacters }
    }
}
