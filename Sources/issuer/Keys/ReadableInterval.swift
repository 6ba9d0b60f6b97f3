import Foundation

/// A time interval written the way operators read it in CLI messages (docs/reference.md, "Admin CLI"): `29d 23h`, `4m 10s`.
///
/// Two units at most, because the precise instant is always printed next to it.
struct ReadableInterval: CustomStringConvertible {
    let seconds: TimeInterval

    init(_ seconds: TimeInterval) {
        self.seconds = seconds
    }

    var description: String {
        var remaining = Int(seconds.rounded(.up))
        guard remaining > 0 else { return "0s" }
        var parts: [String] = []
        for (unit, size) in [("d", 86_400), ("h", 3600), ("m", 60), ("s", 1)] where remaining >= size {
            parts.append("\(remaining / size)\(unit)")
            remaining %= size
            if parts.count == 2 { break }
        }
        return parts.joined(separator: " ")
    }
}
