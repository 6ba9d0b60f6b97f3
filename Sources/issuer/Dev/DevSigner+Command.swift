import DevSigner
import Foundation

extension DevSigner {
    /// The signer of `./.data/dev-apple`, made on first use. There is deliberately no option to
    /// keep the key elsewhere: under `.data/` it is git-ignored and never ships. A key that cannot
    /// be read or made ends the command with one line on stderr and exit status 1 (docs/reference.md, "Admin CLI").
    static func openOrExit() throws -> DevSigner {
        do {
            return try DevSigner(directory: URL(fileURLWithPath: defaultDirectory))
        } catch {
            throw CommandFailure.failed("\(error)")
        }
    }
}
