import Foundation

/// One identity as the user's account shows it: never the provider's `sub`, never a token.
public struct LinkedIdentity: Sendable, Equatable {
    public var provider: String
    public var email: String?
    public var emailVerified: Bool?
    public var linkedAt: Date

    public init(provider: String, email: String?, emailVerified: Bool?, linkedAt: Date) {
        self.provider = provider
        self.email = email
        self.emailVerified = emailVerified
        self.linkedAt = linkedAt
    }
}
