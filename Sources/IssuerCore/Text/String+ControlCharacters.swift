/// Client-supplied text (a name, a user agent, a parameter name) reaches log lines, error
/// descriptions and the admin CLI's tables. docs/reference.md, "Faults and bad input": no input can forge a log line or drive an
/// operator's terminal, so such text is checked or escaped wherever it is shown.
extension String {
    /// Whether any scalar is a control character (C0, DEL, C1), a line or paragraph separator, or
    /// a bidirectional override or isolate, which can make a terminal show text out of order.
    public var containsControlCharacters: Bool {
        unicodeScalars.contains(where: \.isControlLike)
    }

    /// The text with every control-like scalar written as `\u{XX}`, so it prints on one line and
    /// moves no cursor; other text is unchanged.
    public var escapingControlCharacters: String {
        guard containsControlCharacters else { return self }
        var escaped = ""
        escaped.reserveCapacity(utf8.count)
        for scalar in unicodeScalars {
            if scalar.isControlLike {
                escaped += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// At most `maxBytes` of UTF-8, cut at a character boundary.
    public func truncated(toUTF8Bytes maxBytes: Int) -> String {
        guard utf8.count > maxBytes else { return self }
        var result = ""
        var used = 0
        for character in self {
            let size = character.utf8.count
            guard used + size <= maxBytes else { break }
            result.append(character)
            used += size
        }
        return result
    }
}

extension Unicode.Scalar {
    /// A control character (C0, DEL, C1), a line or paragraph separator, or a bidirectional
    /// override, isolate or mark: what `escapingControlCharacters` escapes.
    public var isControlLike: Bool {
        switch value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x2028, 0x2029: true
        case 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C: true
        default: false
        }
    }
}
