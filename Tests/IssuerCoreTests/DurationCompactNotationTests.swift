import IssuerCore
import Testing
import TestSupport

@Suite struct DurationCompactNotationTests {
    @Test(arguments: [
        ("30d", Int64(30 * 86_400)), ("12h", 43_200), ("90m", 5_400), ("3600s", 3_600), ("1s", 1), ("007d", 604_800),
    ])
    func parsesOneUnit(text: String, seconds: Int64) {
        #expect(Duration(compactNotation: text) == .seconds(seconds))
    }

    @Test(arguments: [
        "", "d", "30", "0d", "-1d", "+1d", "1.5d", "1h30m", "30 d", " 30d", "30D", "30w", "١٢h", "99999999999999999d", "9223372036854775807m",
    ])
    func refusesAnythingElse(text: String) {
        #expect(Duration(compactNotation: text) == nil)
    }
}
