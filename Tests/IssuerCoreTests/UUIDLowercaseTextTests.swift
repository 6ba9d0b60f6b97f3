import Foundation
import IssuerCore
import Testing

/// `sub` and `sid` are written by hand (`UUID.lowercaseText`): the text Foundation writes, lowercased.
@Suite struct UUIDLowercaseTextTests {
    @Test func isFoundationsTextLowercased() {
        for _ in 0..<2_000 {
            let id = UUID()
            #expect(id.lowercaseText == id.uuidString.lowercased())
        }
        let edges = [UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)),
                     UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255))]
        #expect(edges.map(\.lowercaseText) == ["00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff"])
    }
}
