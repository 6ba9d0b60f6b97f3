import Foundation
import IssuerCore

extension KeyPruning {
    /// The line `issuer keys prune` prints (docs/reference.md, "Admin CLI").
    var message: String {
        guard removed.isEmpty else {
            return "pruned \(removed.count) retired key(s): \(removed.map(\.kid).joined(separator: ", "))"
        }
        return nextPrunableAt.map {
            "nothing to prune: the first retired key may be pruned from \($0.ISO8601Format()) (in \(ReadableInterval($0.timeIntervalSince(prunedAt))))"
        } ?? "nothing to prune: no retired keys"
    }

    /// What a `--force` prune broke, for stderr (docs/reference.md, "Signing keys"); nil when every removed key was due.
    var warning: String? {
        forced.map {
            "forced prune: removed \($0.kids.joined(separator: ", ")) before \($0.prunableAt.ISO8601Format()); tokens they signed that are still within their lifetime will stop verifying"
        }
    }
}
