import Foundation
import Logging

extension Logger.MetadataValue {
    /// An identifier (`sid`, `sub`, a row id) as tokens and the CLI write it, in lower case, so a
    /// grep for one from a token or from `issuer users show` finds its log lines
    /// (docs/reference.md, "Faults and bad input"). `"\(uuid)"` would print it in upper case.
    public static func identifier(_ id: UUID) -> Self {
        .string(id.lowercaseText)
    }
}
