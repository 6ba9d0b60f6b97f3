import IssuerCore
import Testing

@Suite("Client text shown to logs and terminals (reference: Faults and bad input)")
struct ControlCharacterTests {
    @Test("control characters are escaped; other text is untouched", arguments: [
        ("plain text, é and 😀", "plain text, é and 😀"),
        ("line\nforged", "line\\u{A}forged"),
        ("\u{1B}[31mred", "\\u{1B}[31mred"),
        ("nul\u{0}", "nul\\u{0}"),
        ("c1\u{85}next", "c1\\u{85}next"),
        ("bidi\u{202E}gnp.exe", "bidi\\u{202E}gnp.exe"),
        ("sep\u{2028}", "sep\\u{2028}"),
        ("del\u{7F}", "del\\u{7F}"),
    ])
    func escapes(_ input: String, _ expected: String) {
        #expect(input.escapingControlCharacters == expected)
        #expect(!input.escapingControlCharacters.containsControlCharacters)
    }

    @Test("truncation keeps whole characters")
    func truncation() {
        #expect("aé😀".truncated(toUTF8Bytes: 3) == "aé")
        #expect("aé😀".truncated(toUTF8Bytes: 6) == "aé")
        #expect("aé😀".truncated(toUTF8Bytes: 7) == "aé😀")
        #expect("".truncated(toUTF8Bytes: 0) == "")
    }

    @Test("an OAuth error description keeps to RFC 6749 §5.2's characters and stays bounded")
    func errorDescription() {
        let error = OAuthError.invalidRequest("The \"a\\b\nc\" parameter is repeated: é")
        #expect(error.description == "The %22a%5Cb%0Ac%22 parameter is repeated: %C3%A9")
        let long = OAuthError.invalidRequest(String(repeating: "x", count: 5000))
        #expect(long.description.utf8.count == 512)
    }
}
