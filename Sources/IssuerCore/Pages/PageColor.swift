import Foundation

/// A colour of the pages, written `#rrggbb` or `#rgb` (docs/reference.md, "The pages people
/// see"). Nothing else is accepted, so an operator's value can go into the page's style sheet
/// as written and can never carry anything but a colour into it.
public struct PageColor: Sendable, Equatable, CustomStringConvertible {
    public let red: UInt8
    public let green: UInt8
    public let blue: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// `#1877f2`, `#1877F2` or `#fff`; nil for anything else.
    public init?(_ text: String) {
        guard text.hasPrefix("#"), text.unicodeScalars.allSatisfy(\.isASCII) else { return nil }
        var digits = String(text.dropFirst())
        if digits.count == 3 { digits = digits.map { "\($0)\($0)" }.joined() }
        guard digits.count == 6, digits.allSatisfy(\.isHexDigit), let value = UInt32(digits, radix: 16) else { return nil }
        self.init(red: UInt8(value >> 16 & 0xFF), green: UInt8(value >> 8 & 0xFF), blue: UInt8(value & 0xFF))
    }

    /// `#rrggbb`, lower case: what the style sheet says.
    public var description: String {
        String(format: "#%02x%02x%02x", red, green, blue)
    }

    /// WCAG 2.2's relative luminance (its definition of the term, sRGB).
    public var relativeLuminance: Double {
        func channel(_ value: UInt8) -> Double {
            let c = Double(value) / 255
            return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
        }
        return 0.2126 * channel(red) + 0.7152 * channel(green) + 0.0722 * channel(blue)
    }

    /// WCAG 2.2's contrast ratio with `other`, from 1 to 21.
    public func contrast(with other: PageColor) -> Double {
        let (a, b) = (relativeLuminance, other.relativeLuminance)
        return (max(a, b) + 0.05) / (min(a, b) + 0.05)
    }
}
