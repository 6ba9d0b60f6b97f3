import Foundation

/// What `issuer users show` tells of a user's Apple side (docs/reference.md, "Admin CLI" and "Apple notifications"): whether Apple's relay
/// forwards e-mail, and which Apple tokens are held (never the tokens themselves); read by `AppleAccountStateStore`.
public struct AppleAccountState: Sendable {
    /// `enabled` or `disabled` as Apple last said; nil when Apple never said.
    public var emailForwarding: String?
    /// When that changed (Apple's `event_time`).
    public var emailForwardingChangedAt: Date?
    /// The Apple `client_id` of each refresh token held, and when it was stored.
    public var heldTokens: [(clientID: String, since: Date)]
    /// Authorization codes still waiting for Apple.
    public var pendingCodes: Int

    package init(
        emailForwarding: String? = nil, emailForwardingChangedAt: Date? = nil, heldTokens: [(clientID: String, since: Date)], pendingCodes: Int
    ) {
        self.emailForwarding = emailForwarding
        self.emailForwardingChangedAt = emailForwardingChangedAt
        self.heldTokens = heldTokens
        self.pendingCodes = pendingCodes
    }
}
