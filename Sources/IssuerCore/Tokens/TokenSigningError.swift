/// Why tokens could not be minted (docs/reference.md, "Tokens and sessions" and "Signing keys"). Never the client's fault: callers answer
/// `server_error` (or `temporarily_unavailable` for an empty ring) and log this.
public enum TokenSigningError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The ring is empty: nothing to sign with until `issuer keys init`.
    case noActiveKey
    /// Only the active key signs (docs/reference.md, "Signing keys"); a next or retired key was passed.
    case keyNotActive(kid: String)
    /// Serializing or signing failed.
    case signingFailed(String)

    /// One line for the log (docs/reference.md, "Tokens and sessions").
    public var description: String {
        switch self {
        case .noActiveKey: "cannot mint tokens: the key ring has no active key (run `issuer keys init`)"
        case .keyNotActive(let kid): "cannot mint tokens with key \(kid): it is not the active key"
        case .signingFailed(let detail): "cannot mint tokens: \(detail)"
        }
    }
}
