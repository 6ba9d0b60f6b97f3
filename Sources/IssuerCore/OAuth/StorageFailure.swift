/// What a storage error says of itself, so that the service boundary translates it
/// (`OAuthError.storage`) without knowing which database answered (docs/design.md, "Errors").
public protocol StorageFailure: Error {
    /// The database cannot be reached, or refuses our connection settings: the client's cue to
    /// retry (503), not our fault (500).
    var leavesServiceUnavailable: Bool { get }
}
