extension Duration {
    /// Parses the compact form operators type for `issuer keys rotate --if-older-than` (docs/reference.md, "Admin CLI"):
    /// a positive whole number followed by one unit, `s`, `m`, `h` or `d` — `3600s`, `90m`, `12h`, `30d`.
    ///
    /// One unit only, and no signs, fractions or spaces: a cron line is read rarely and by tired
    /// people, so anything ambiguous (`1.5d`, `1h30m`, `30`) is refused instead of guessed at.
    /// Returns `nil` when the text is not of that form or the value would overflow.
    public init?(compactNotation text: some StringProtocol) {
        guard let unit = text.last, text.count >= 2 else { return nil }
        let digits = text.dropLast()
        guard digits.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int64(digits), value > 0 else { return nil }
        let multiplier: Int64
        switch unit {
        case "s": multiplier = 1
        case "m": multiplier = 60
        case "h": multiplier = 3600
        case "d": multiplier = 86_400
        default: return nil
        }
        let (seconds, overflow) = value.multipliedReportingOverflow(by: multiplier)
        guard !overflow else { return nil }
        self = .seconds(seconds)
    }
}
