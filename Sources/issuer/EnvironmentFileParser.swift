/// The state machine of systemd's environment-file reader (`parse_env_file_internal` in
/// systemd's `src/basic/env-file.c`), transcribed so that ``EnvironmentFile`` accepts exactly
/// what a unit's `EnvironmentFile=` accepts.
struct EnvironmentFileParser {
    private enum State {
        case preKey, key, preValue, value, valueEscape, singleQuoted, doubleQuoted, doubleQuotedEscape, comment, commentEscape
    }

    private let text: [Unicode.Scalar]

    init(_ text: [Unicode.Scalar]) {
        self.text = text
    }

    /// Each assignment as (line it starts on, key, value), in file order.
    mutating func assignments() -> [(line: Int, key: String, value: String)] {
        var result: [(Int, String, String)] = []
        var state = State.preKey
        var key = String.UnicodeScalarView(), value = String.UnicodeScalarView()
        // Where trailing whitespace of the key or an unquoted value starts, if it does.
        var keyWhitespace: Int?, valueWhitespace: Int?
        var line = 1, keyLine = 1

        func push() {
            var key = key, value = value
            if let keyWhitespace { key = String.UnicodeScalarView(key.prefix(keyWhitespace)) }
            if let valueWhitespace { value = String.UnicodeScalarView(value.prefix(valueWhitespace)) }
            result.append((keyLine, String(key), String(value)))
        }

        for c in text {
            defer { if c == "\n" { line += 1 } }
            let isNewline = c == "\n" || c == "\r"
            let isWhitespace = isNewline || c == " " || c == "\t"
            switch state {
            case .preKey:
                if c == "#" || c == ";" {
                    state = .comment
                } else if !isWhitespace {
                    state = .key
                    key = String.UnicodeScalarView([c])
                    value = String.UnicodeScalarView()
                    keyWhitespace = nil
                    valueWhitespace = nil
                    keyLine = line
                }
            case .key:
                if isNewline {
                    state = .preKey
                } else if c == "=" {
                    state = .preValue
                } else {
                    if !isWhitespace { keyWhitespace = nil } else if keyWhitespace == nil { keyWhitespace = key.count }
                    key.append(c)
                }
            case .preValue:
                if isNewline {
                    state = .preKey
                    push()
                } else if c == "'" {
                    state = .singleQuoted
                } else if c == "\"" {
                    state = .doubleQuoted
                } else if c == "\\" {
                    state = .valueEscape
                } else if !isWhitespace {
                    state = .value
                    value.append(c)
                }
            case .value:
                if isNewline {
                    state = .preKey
                    push()
                } else if c == "\\" {
                    state = .valueEscape
                    valueWhitespace = nil
                } else {
                    if !isWhitespace { valueWhitespace = nil } else if valueWhitespace == nil { valueWhitespace = value.count }
                    value.append(c)
                }
            case .valueEscape:
                state = .value
                if !isNewline { value.append(c) }
            case .singleQuoted:
                if c == "'" { state = .preValue } else { value.append(c) }
            case .doubleQuoted:
                if c == "\"" { state = .preValue } else if c == "\\" { state = .doubleQuotedEscape } else { value.append(c) }
            case .doubleQuotedEscape:
                state = .doubleQuoted
                if c == "\"" || c == "\\" || c == "`" || c == "$" {
                    value.append(c)
                } else if c != "\n" {
                    value.append("\\")
                    value.append(c)
                }
            case .comment:
                if c == "\\" { state = .commentEscape } else if isNewline { state = .preKey }
            case .commentEscape:
                state = isNewline ? .preKey : .comment
            }
        }
        switch state {
        case .preValue, .value, .valueEscape, .singleQuoted, .doubleQuoted, .doubleQuotedEscape: push()
        case .preKey, .key, .comment, .commentEscape: break
        }
        return result
    }
}
