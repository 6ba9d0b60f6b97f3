#if canImport(Glibc)
import Glibc
#endif

/// The `Date` field of answers written past the router (RFC 9110 §6.6.1, in §5.6.7's
/// IMF-fixdate), made once a second per connection rather than per answer.
struct ResponseDate {
    private var second = -1
    private var text = ""

    mutating func current() -> String {
        var now = time(nil)
        guard Int(now) != second else { return text }
        var parts = tm()
        gmtime_r(&now, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        text = "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
        second = Int(now)
        return text
    }
}
