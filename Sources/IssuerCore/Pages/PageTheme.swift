import Foundation

/// The look of the pages people see (docs/reference.md, "The pages people see"): a palette for
/// light and one for dark (`prefers-color-scheme`), and an optional logo. Built in, or read from
/// `theme.json` in `ISSUER_PAGES_DIR`, one flat JSON object whose members each replace one
/// built-in value:
///
/// ```json
/// {"logo": "logo.svg", "accent": "#0b57d0", "dark_accent": "#8ab4f8"}
/// ```
///
/// Every text colour must keep WCAG 2.2 AA contrast (4.5:1) with the card it sits on, and the
/// accent (the keyboard focus ring) 3:1, in both palettes; a theme that breaks that is refused at
/// start rather than shown to people who then cannot read it.
public struct PageTheme: Sendable, Equatable {
    /// One palette's colours.
    public struct Palette: Sendable, Equatable {
        /// Behind the card.
        public var background: PageColor
        /// The card every sentence and button sits on.
        public var surface: PageColor
        public var text: PageColor
        /// Secondary sentences (the details of a refusal).
        public var muted: PageColor
        /// The keyboard focus ring.
        public var accent: PageColor
        /// The card's edge and a neutral provider button's.
        public var border: PageColor
    }

    public var light: Palette
    public var dark: Palette
    /// A file of `ISSUER_PAGES_DIR` shown above the name on every page; a client's `logo` wins
    /// on its own sign-in page.
    public var logo: String?

    public static let builtIn = PageTheme(
        light: Palette(
            background: PageColor(red: 0xF2, green: 0xF3, blue: 0xF5), surface: PageColor(red: 0xFF, green: 0xFF, blue: 0xFF),
            text: PageColor(red: 0x1C, green: 0x1E, blue: 0x21), muted: PageColor(red: 0x5E, green: 0x63, blue: 0x69),
            accent: PageColor(red: 0x0B, green: 0x57, blue: 0xD0), border: PageColor(red: 0x8C, green: 0x91, blue: 0x96)),
        dark: Palette(
            background: PageColor(red: 0x0F, green: 0x11, blue: 0x15), surface: PageColor(red: 0x1B, green: 0x1D, blue: 0x22),
            text: PageColor(red: 0xEC, green: 0xEE, blue: 0xF1), muted: PageColor(red: 0xA9, green: 0xAE, blue: 0xB6),
            accent: PageColor(red: 0x8A, green: 0xB4, blue: 0xF8), border: PageColor(red: 0x6B, green: 0x70, blue: 0x79)),
        logo: nil)

    /// Why a `theme.json` was refused, phrased to follow the file's name.
    public struct Problem: Error, CustomStringConvertible {
        public let description: String
    }

    /// The colour members, light first; `dark_` before a name sets the dark palette's.
    static var colorNames: [(name: String, path: WritableKeyPath<Palette, PageColor>)] {
        [
            ("background", \.background), ("surface", \.surface), ("text", \.text), ("muted", \.muted),
            ("accent", \.accent), ("border", \.border),
        ]
    }

    /// What `theme.json` may say.
    static let memberNames: Set<String> = Set(["logo"] + colorNames.flatMap { [$0.name, "dark_" + $0.name] })

    /// The built-in theme with `theme.json`'s members laid over it.
    public init(json data: Data) throws(Problem) {
        do throws(ConfigurationJSON.Problem) {
            _ = try ConfigurationJSON.objectMembers(in: data, of: "the theme", known: Self.memberNames)
        } catch {
            throw Problem(description: error.description)
        }
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw Problem(description: "is not valid JSON")
        }
        self = .builtIn
        for (name, value) in object {
            guard let text = value as? String else { throw Problem(description: "has \(name), which must be a string") }
            if name == "logo" {
                logo = text
                continue
            }
            guard let color = PageColor(text) else {
                throw Problem(description: "has \(name) \(ConfigurationJSON.quoted(text)), which must be a colour written #rrggbb or #rgb")
            }
            let dark = name.hasPrefix("dark_")
            let bare = dark ? String(name.dropFirst("dark_".count)) : name
            guard let path = Self.colorNames.first(where: { $0.name == bare })?.path else { continue }
            if dark { self.dark[keyPath: path] = color } else { light[keyPath: path] = color }
        }
        if let problem = Self.contrastProblem(light, prefix: "") ?? Self.contrastProblem(dark, prefix: "dark_") {
            throw Problem(description: problem)
        }
    }

    init(light: Palette, dark: Palette, logo: String?) {
        self.light = light
        self.dark = dark
        self.logo = logo
    }

    /// WCAG 2.2 SC 1.4.3 (text, 4.5:1) and 1.4.11 (the focus ring, and the border that is the
    /// only edge of a neutral provider button, 3:1) against the card.
    static func contrastProblem(_ palette: Palette, prefix: String) -> String? {
        let rules: [(name: String, color: PageColor, minimum: Double)] = [
            ("text", palette.text, 4.5), ("muted", palette.muted, 4.5), ("accent", palette.accent, 3),
            ("border", palette.border, 3),
        ]
        for rule in rules {
            let ratio = rule.color.contrast(with: palette.surface)
            if ratio < rule.minimum {
                return "has \(prefix)\(rule.name) \(rule.color) on \(prefix)surface \(palette.surface) at a contrast of "
                    + String(format: "%.2f", ratio) + ":1; WCAG 2.2 AA asks for at least \(rule.minimum == 3 ? "3" : "4.5"):1"
            }
        }
        return nil
    }
}
