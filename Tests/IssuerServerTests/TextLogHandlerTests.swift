import Foundation
import IssuerServer
import Logging
import Synchronization
import Testing

@Suite("Text logs (reference: Faults and bad input: no input can forge a log line)")
struct TextLogHandlerTests {
    @Test("a client-supplied value with a newline or an escape sequence stays on one escaped line")
    func escapesControlCharacters() throws {
        let lines = Mutex<[String]>([])
        var logger = Logger(label: "issuer.test") { label in
            TextLogHandler(label: label) { line in lines.withLock { $0.append(line) } }
        }
        logger[metadataKey: "hb.request.id"] = "abc123"
        logger.info("request refused", metadata: [
            "user_agent": "App/1\n2026-11-23T00:00:00Z critical issuer: forged line",
            "name": "\u{1B}]0;owned\u{7}",
        ])
        logger.debug("below the level")
        let written = lines.withLock { $0 }
        #expect(written.count == 1)
        let line = try #require(written.first)
        #expect(line.hasSuffix("\n"))
        #expect(!line.dropLast().contains("\n"))
        #expect(!line.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 })
        #expect(line.contains(#"user_agent="App/1\u{A}2026-11-23T00:00:00Z critical issuer: forged line""#))
        #expect(line.contains(#"name="\u{1B}]0;owned\u{7}""#))
        #expect(line.contains(" info issuer.test: request refused "))
        #expect(line.contains("hb.request.id=abc123"))
    }

    @Test("Logs, logfmt: a value with spaces, = or quotes cannot forge a field; it is one quoted value", arguments: [
        ("x client_id=admin sid=0000 level=critical", #"reason="x client_id=admin sid=0000 level=critical""#),
        (#"say "hi" \ bye"#, #"reason="say \"hi\" \\ bye""#),
        ("", #"reason="""#),
        ("caf\u{E9}", "reason=\"caf\u{E9}\""),
        ("invalid_grant", "reason=invalid_grant"),
        // A quote or backslash carrying a combining mark is escaped all the same.
        ("x\"\u{301} client_id=admin", "reason=\"x\\\"\u{301} client_id=admin\""),
        ("y\\\u{301}\" b=c", "reason=\"y\\\\\u{301}\\\" b=c\""),
    ])
    func quotesValues(value: String, expected: String) throws {
        let lines = Mutex<[String]>([])
        let logger = Logger(label: "issuer.test") { label in
            TextLogHandler(label: label) { line in lines.withLock { $0.append(line) } }
        }
        logger.info("hosted sign-in refused", metadata: ["reason": "\(value)", "client_id": "web"])
        let line = try #require(lines.withLock { $0 }.first)
        #expect(line.hasSuffix(" client_id=web \(expected)\n"), "\(line)")
    }
}
