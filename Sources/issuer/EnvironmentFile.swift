import Foundation

/// A file of `KEY=value` lines in the format of systemd's `EnvironmentFile=` (systemd.exec(5)),
/// read by `--env-file` so that an admin command on a server host sees what the unit sees.
///
/// The rules are systemd's, so that a file that works for the unit works here: empty lines and
/// lines starting with `#` or `;` are comments; a line without `=` is ignored; whitespace
/// around the key and before the value is dropped, and trailing whitespace of an unquoted value;
/// a value may be quoted with `'…'` (taken literally) or `"…"` (where `\"`, `\\`, `` \` `` and `\$`
/// are escapes); a backslash at the end of a line continues the value on the next one; outside
/// quotes a backslash takes the next character literally. Names that are not valid environment
/// names (letters, digits and `_`, not starting with a digit) are ignored, as systemd ignores them,
/// and reported in ``ignored`` so the caller can say so.
struct EnvironmentFile: Sendable, Equatable {
    /// The assignments in file order; a later one of the same name wins.
    private(set) var values: [String: String] = [:]
    /// Lines that assign to a name that is not a valid environment name (1-based line numbers).
    private(set) var ignored: [Int] = []

    /// Reads and parses the file at `path`.
    init(contentsOf path: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        self.init(parsing: String(decoding: data, as: UTF8.self))
    }

    init(parsing text: String) {
        var parser = EnvironmentFileParser(Array(text.unicodeScalars))
        for (line, key, value) in parser.assignments() {
            if Self.isValidName(key) {
                values[key] = value
            } else {
                ignored.append(line)
            }
        }
    }

    /// POSIX's portable environment names, which systemd also requires.
    static func isValidName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
        return name.unicodeScalars.allSatisfy { $0 == "_" || ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) }
    }
}
