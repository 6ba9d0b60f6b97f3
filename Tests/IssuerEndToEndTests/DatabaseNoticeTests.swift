import Foundation
import Testing
import TestSupport

/// docs/reference.md, "Faults and bad input": every line the process writes goes through its
/// logger, the database's notices included, so with `ISSUER_LOG_FORMAT=json` every line is JSON.
@Suite("Database notices go through the logger")
struct DatabaseNoticeTests {
    @Test("a second migrate (CREATE TABLE IF NOT EXISTS answers a NOTICE) writes only JSON lines, at every level")
    func noticesAreLogLines() async throws {
        let database = try await TestCluster.freshDatabase()
        let environment = ["ISSUER_DATABASE_URL": database, "ISSUER_LOG_FORMAT": "json", "ISSUER_LOG_LEVEL": "trace"]
        for run in 1...2 {
            let result = try await IssuerCommand.run(
                ["migrate", "--output", "json"], in: FileManager.default.temporaryDirectory, environment: environment)
            #expect(result.code == 0, "\(result.output)")
            let lines = result.output.split(separator: "\n").filter { !$0.isEmpty }
            #expect(!lines.isEmpty)
            for line in lines {
                let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                #expect(object != nil, "run \(run): not a JSON object: \(line)")
            }
            if run == 2 {
                #expect(result.output.contains("database notice"), "the notice reached the logger: \(result.output)")
            }
        }
    }
}
