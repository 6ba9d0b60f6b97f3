import Foundation
import IssuerCore

/// The key ring rule `issuer serve` applies before it starts (docs/reference.md, "Signing keys" and "The embedded database"), shared with
/// `issuer config check` so that the check refuses exactly what serving would: an invalid or
/// broken ring (key files without their `ring.json`) stops both, on every database; an empty one is created on the embedded default and refused with an external
/// database, where keys are an operator's decision (`issuer keys init`).
enum KeyRingPreflight {
    /// The ring as it is on disk; throws the one-line failure (exit 1) when serving could not start.
    static func check(_ configuration: Configuration) throws -> KeyRing {
        let store = KeyRingDirectory(directory: configuration.keysDirectory)
        let ring: KeyRing
        do {
            ring = try store.load()
        } catch let broken as KeyRingError where broken.isBroken {
            // Its own words: "invalid" would hide that `keys init` is the wrong answer here.
            throw CommandFailure.failed("\(broken)")
        } catch {
            throw CommandFailure.failed("the key ring in \(store.directory.path) is invalid: \(error)")
        }
        if ring.isEmpty, configuration.databaseURL != nil {
            throw CommandFailure.failed("the key ring in \(store.directory.path) is empty; create it with `issuer keys init`")
        }
        return ring
    }
}
