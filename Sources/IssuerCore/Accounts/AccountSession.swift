import Foundation

/// One signed-in device as the user sees it: never a token, never an IP address.
public struct AccountSession: Sendable, Equatable {
    /// The session id: the `sid` of its tokens.
    public var sessionID: UUID
    public var clientID: String
    /// The provider it signed in with; nil for a session from before this was recorded.
    public var provider: String?
    public var createdAt: Date
    /// The sign-in or its latest refresh.
    public var lastUsedAt: Date
    public var userAgent: String?

    public init(sessionID: UUID, clientID: String, provider: String?, createdAt: Date, lastUsedAt: Date, userAgent: String?) {
        self.sessionID = sessionID
        self.clientID = clientID
        self.provider = provider
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.userAgent = userAgent
    }
}
