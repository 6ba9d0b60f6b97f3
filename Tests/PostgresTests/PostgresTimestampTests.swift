import Foundation
@testable import Postgres
import Testing

@Suite("timestamptz text")
struct PostgresTimestampTests {
    @Test("parses the server's ISO output with and without fractions and offsets", arguments: [
        ("2026-11-21 13:45:48+00", 1_795_268_748.0),
        ("2026-11-21 13:45:48.5+00", 1_795_268_748.5),
        ("2026-11-21 15:45:48.25+02", 1_795_268_748.25),
        ("2026-11-21 13:15:48-00:30", 1_795_268_748.0),
        ("1970-01-01 00:00:00+00", 0),
        ("1969-12-31 23:59:59+00", -1),
    ])
    func parse(text: String, epoch: Double) {
        #expect(PostgresTimestamp.parse(text)?.timeIntervalSince1970 == epoch)
    }

    @Test("refuses what is not a timestamp", arguments: ["", "infinity", "2026-11-21", "2026-11-21 13:45:48 UTC", "2026-13-21X13:45:48+00"])
    func refuse(text: String) {
        #expect(PostgresTimestamp.parse(text) == nil)
    }

    @Test("format and parse are inverse to the microsecond")
    func roundTrip() {
        for seconds in [0.0, 1_795_268_748.123456, -86_400.5, 4_102_444_800.000001] {
            let date = Date(timeIntervalSince1970: seconds)
            let parsed = PostgresTimestamp.parse(PostgresTimestamp.format(date))
            #expect(abs((parsed?.timeIntervalSince1970 ?? .nan) - seconds) < 0.000_001)
        }
    }

    @Test("a non-finite or absurd date is written as infinity, never a trap (a remote party's time reaches here)", arguments: [
        (Double.nan, "infinity"), (Double.infinity, "infinity"), (-Double.infinity, "-infinity"), (1e297, "infinity"), (-1e297, "-infinity"),
    ])
    func absurdDates(seconds: Double, expected: String) {
        #expect(PostgresTimestamp.format(Date(timeIntervalSince1970: seconds)) == expected)
    }
}
