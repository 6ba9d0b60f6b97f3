import Foundation
import IssuerServer
import Logging
import Synchronization
import Testing

@Suite("JSON logs")
struct JSONLogHandlerTests {
    @Test("one JSON object per line with level, message and metadata")
    func oneObjectPerLine() throws {
        let lines = Mutex<[String]>([])
        var logger = Logger(label: "issuer.test") { label in
            JSONLogHandler(label: label) { line in lines.withLock { $0.append(line) } }
        }
        logger[metadataKey: "hb.request.id"] = "abc123"
        logger.info("signed in\nwith a newline", metadata: ["client_id": "clanboards-mobile", "count": "\(3)"])
        logger.debug("below the level")
        let written = lines.withLock { $0 }
        #expect(written.count == 1)
        let line = try #require(written.first)
        #expect(line.hasSuffix("\n"))
        #expect(line.dropLast().contains("\n") == false)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["level"] as? String == "info")
        #expect(object["message"] as? String == "signed in\nwith a newline")
        #expect(object["label"] as? String == "issuer.test")
        #expect(object["hb.request.id"] as? String == "abc123")
        #expect(object["client_id"] as? String == "clanboards-mobile")
        #expect((object["timestamp"] as? String)?.hasSuffix("Z") == true)
    }
}
