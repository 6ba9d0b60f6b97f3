import Foundation
import IssuerCore

/// The `user` member Apple posts to the hosted flow's callback on a first consent. Each input is
/// read as the whole member, and as the first name inside one that is otherwise well formed.
/// The type is `package`, visible to this package's targets only. Fuzzed by Fuzz/AppleUserJSON, replayed on its corpus by
/// Tests/FuzzCorpusTests.
public enum AppleUserJSONHarness {
    /// One input; a failed check traps, as libFuzzer expects.
    public static func run(_ input: UnsafeRawBufferPointer) {
        let text = String(decoding: input, as: UTF8.self)

        // 1. The whole member: never traps, and what it keeps is a usable name part.
        let user = AppleUserJSON(text)
        for part in [user.givenName, user.familyName].compactMap({ $0 }) {
            precondition(acceptable(part), "kept \(part.debugDescription)")
        }
        if text.utf8.count > 4096 {
            precondition(user.givenName == nil && user.familyName == nil, "read a member of \(text.utf8.count) bytes")
        }

        // 2. The input as `firstName`: kept exactly when it is a usable name part, and then as sent;
        // the last name beside it is unaffected.
        let member: [String: Any] = ["name": ["firstName": text, "lastName": "Appleseed"], "email": "a@privaterelay.appleid.com"]
        guard let json = try? JSONSerialization.data(withJSONObject: member, options: [.sortedKeys]) else { return }
        let wrapped = AppleUserJSON(String(decoding: json, as: UTF8.self))
        if json.count <= 4096 {
            precondition(wrapped.givenName == (acceptable(text) ? text : nil), "first name \(text.debugDescription) read as \(String(describing: wrapped.givenName))")
            precondition(wrapped.familyName == "Appleseed", "last name lost beside \(text.debugDescription)")
        } else {
            precondition(wrapped.givenName == nil && wrapped.familyName == nil, "read a member of \(json.count) bytes")
        }
    }

    /// Non-empty, at most the exchange's bound, and no control-like scalar (C0, DEL, C1, line and
    /// paragraph separators, bidirectional marks, overrides and isolates).
    private static func acceptable(_ part: String) -> Bool {
        guard !part.isEmpty, part.utf8.count <= IdentityExchange.Request.maximumNamePartLength else { return false }
        return !part.unicodeScalars.contains { scalar in
            switch scalar.value {
            case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C: true
            default: false
            }
        }
    }
}
