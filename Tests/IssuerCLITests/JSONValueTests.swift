import Foundation
@testable import issuer
import Testing

/// `--output json` (docs/cli.md): one document per command, which a terminal can show safely.
@Suite struct JSONValueTests {
    @Test("DEL, C1, separators and bidirectional overrides are \\u escapes, as C0 controls are; the document still decodes to the same text",
          arguments: ["a\u{7F}b", "a\u{9B}31mb", "evil\u{202E}txt", "x\u{2028}y", "\u{1B}[2J", "é ünïcode 🙂 stays"])
    func escapes(text: String) throws {
        let document = JSONValue.object(["email": .string(text)]).serialized
        #expect(!document.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0.value == 0x202E || $0.value == 0x2028 })
        let decoded = try JSONSerialization.jsonObject(with: Data(document.utf8)) as? [String: String]
        #expect(decoded == ["email": text])
    }

    @Test("plain text is written as it is: sorted keys, no whitespace, slashes unescaped")
    func plain() {
        #expect(JSONValue.object(["b": .number(1), "a": .string("x/y"), "c": .null]).serialized == #"{"a":"x/y","b":1,"c":null}"#)
    }
}
