/// Why tokens could not be minted (SPEC §4, §5). Never the client's fault: callers answer
/// `server_error` (or `temporarily_unavailable` for an empty ring) and log this.
public enum TokenSigningError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The ring is empty: nothing to sign with until `issuer keys init`.
    case noActiveKey
    /// Only the active key signs (SPEC §5); a next or retired key was passed.
    case keyNotActive(kid: String)
    /// Serializing or signing failed.
    case signingFailed(String)

    /// One line for the log (SPEC §4).
    public var description: String {
        switch self {
        case .noActiveKey: "cannot mint tokens: the key ring has no active key (run `issuer keys init`)"
        case .keyNotActive(let kid): "cannot mint tokens with key \(kid): it is not the active key"
        case .signingFailed(let detail): "cannot mint tokens: \(detail)"
        }
    }
}
