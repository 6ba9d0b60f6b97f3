import Foundation

/// `timestamptz` text in the ISO `DateStyle` every connection of ours sets, with `TimeZone=UTC`:
/// `2026-11-21 13:45:48.123456+00`. Parsed by hand because it is on every row of the hot paths
/// and Foundation's formatters are slow and locale-sensitive.
enum PostgresTimestamp {
    /// Beyond this many seconds from 1970 either way, a date is written as PostgreSQL's
    /// `infinity`/`-infinity` (the type's own range ends near year 294276): a remote party's
    /// absurd or non-finite time is then a value, never a trap converting it to an integer.
    static let finiteBound: TimeInterval = 8e12

    static func format(_ date: Date) -> String {
        let interval = date.timeIntervalSince1970
        guard interval.isFinite, abs(interval) < finiteBound else {
            return interval < 0 ? "-infinity" : "infinity"
        }
        let totalMicros = (date.timeIntervalSince1970 * 1_000_000).rounded()
        var seconds = Int64((totalMicros / 1_000_000).rounded(.down))
        let micros = Int64(totalMicros) - seconds * 1_000_000
        let days = floorDiv(seconds, 86_400)
        seconds -= days * 86_400
        let (year, month, day) = civil(fromDays: days)
        // By hand rather than String(format:), which goes through NSString on every parameter.
        var text = ""
        text.reserveCapacity(27)
        func append(_ value: Int, width: Int) {
            let digits = String(value)
            if digits.count < width { text += String(repeating: "0", count: width - digits.count) }
            text += digits
        }
        append(year, width: 4); text += "-"
        append(month, width: 2); text += "-"
        append(day, width: 2); text += "T"
        append(Int(seconds / 3600), width: 2); text += ":"
        append(Int(seconds % 3600 / 60), width: 2); text += ":"
        append(Int(seconds % 60), width: 2); text += "."
        append(Int(micros), width: 6); text += "Z"
        return text
    }

    static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        var index = 0
        func number(_ width: Int) -> Int? {
            guard index + width <= bytes.count else { return nil }
            var value = 0
            for offset in 0..<width {
                let c = bytes[index + offset]
                guard c >= 48, c <= 57 else { return nil }
                value = value * 10 + Int(c - 48)
            }
            index += width
            return value
        }
        func expect(_ c: Character) -> Bool {
            guard index < bytes.count, bytes[index] == c.asciiValue! else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2)
        else { return nil }
        guard index < bytes.count, bytes[index] == 32 || bytes[index] == 84 else { return nil }
        index += 1
        guard let hour = number(2), expect(":"), let minute = number(2), expect(":"), let second = number(2)
        else { return nil }
        var fraction = 0.0
        if index < bytes.count, bytes[index] == 46 {
            index += 1
            var scale = 0.1
            while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
                fraction += Double(bytes[index] - 48) * scale
                scale /= 10
                index += 1
            }
        }
        var offsetSeconds = 0
        if index < bytes.count {
            let sign: Int
            switch bytes[index] {
            case 43: sign = 1
            case 45: sign = -1
            case 90: sign = 0
            default: return nil
            }
            index += 1
            if sign != 0 {
                guard let hours = number(2) else { return nil }
                var minutes = 0
                if expect(":") { guard let m = number(2) else { return nil }; minutes = m }
                offsetSeconds = sign * (hours * 3600 + minutes * 60)
            }
        }
        guard index == bytes.count else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offsetSeconds)
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    private static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        a >= 0 ? a / b : -((-a + b - 1) / b)
    }

    // Howard Hinnant's days-from-civil algorithms (proleptic Gregorian calendar).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let m = Int64(month)
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    private static func civil(fromDays days: Int64) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (Int(m <= 2 ? y + 1 : y), Int(m), Int(d))
    }
}
