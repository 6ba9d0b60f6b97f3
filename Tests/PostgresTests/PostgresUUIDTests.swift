import Foundation
import Postgres
import Testing

/// `uuid` columns are read by hand (`PostgresUUID`): they must read what Foundation's
/// `UUID(uuidString:)` reads, to the same value, and refuse what it refuses (and the signs and
/// spaces its `sscanf` lets into a digit pair).
@Suite struct PostgresUUIDTests {
    @Test func readsWhatFoundationReads() throws {
        for _ in 0..<2_000 {
            let id = UUID()
            #expect(try UUID(postgresText: id.uuidString.lowercased()) == id)
            #expect(try UUID(postgresText: id.uuidString) == id)
        }
    }

    @Test func refusesWhatFoundationRefuses() {
        let valid = "0f8fad5b-d9cb-469f-a165-70867728950e"
        var candidates = ["", valid + "0", String(valid.dropLast()), "{\(valid)}", valid.replacingOccurrences(of: "-", with: ""),
                          " " + valid.dropFirst(), valid.replacingOccurrences(of: "-", with: "_")]
        // Every position replaced by each of a few characters: a hyphen misplaced, a non-hex digit,
        // a non-ASCII one.
        for offset in 0..<valid.count {
            for replacement in ["g", "-", "+", " ", "G", "é", "0", "F"] {
                var text = Array(valid)
                text[offset] = Character(replacement)
                candidates.append(String(text))
            }
        }
        for text in candidates {
            let foundation = UUID(uuidString: text)
            // Foundation's sscanf reads a sign or a space inside a digit pair ("-f" as 0xf1): a text
            // the server never writes, refused here.
            let signed = text.contains(" ") || text.contains("+") || text.enumerated().contains { $0.element == "-" && ![8, 13, 18, 23].contains($0.offset) }
            #expect((try? UUID(postgresText: text)) == (signed ? nil : foundation), "\(text)")
        }
        #expect(candidates.contains { UUID(uuidString: $0) == nil } && candidates.contains { UUID(uuidString: $0) != nil })
    }
}
