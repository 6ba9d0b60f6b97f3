import Foundation

/// The user as tokens describe it (docs/reference.md, "Access tokens" and "ID tokens"): our stable id, never the provider's.
public struct UserProfile: Sendable, Equatable {
    /// Our stable user id; `subject` is its text form.
    public var id: UUID
    /// OIDC Core §5.1 `email`, as the provider last reported it (for Apple, possibly a relay address).
    public var email: String?
    /// OIDC Core §5.1 `email_verified`, as the provider last reported it.
    public var emailVerified: Bool?
    /// OIDC Core §5.1 `given_name`, as the app forwarded it at a sign-in.
    public var givenName: String?
    /// OIDC Core §5.1 `family_name`, as the app forwarded it at a sign-in.
    public var familyName: String?

    /// OIDC Core §5.1 `name`: the full name, when any part is known.
    public var name: String? {
        let parts = [givenName, familyName].compactMap { $0 }.filter { !$0.isEmpty }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }

    /// Our `sub`: the lowercase UUID.
    public var subject: String { id.lowercaseText }

    public init(id: UUID, email: String? = nil, emailVerified: Bool? = nil, givenName: String? = nil, familyName: String? = nil) {
        self.id = id
        self.email = email
        self.emailVerified = emailVerified
        self.givenName = givenName
        self.familyName = familyName
    }
}
