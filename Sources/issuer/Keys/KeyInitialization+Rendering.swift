import Foundation
import IssuerCore

extension KeyInitialization {
    /// The line `issuer keys init` prints, and `serve` logs when it creates the development ring (docs/reference.md, "Admin CLI").
    var message: String {
        switch change {
        case .createdRing(let activeKid, let nextKid):
            "created active key \(activeKid) and next key \(nextKid) in \(directory)"
        case .addedNextKey(let kid, let promotableAt):
            "the ring had no next key: created next key \(kid), promotable from \(promotableAt.ISO8601Format())"
        case .none:
            "the key ring in \(directory) is already initialized (\(ring.keys.count) keys); nothing to do"
        }
    }
}
