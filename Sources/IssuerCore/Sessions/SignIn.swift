import Foundation

/// A completed sign-in: who, which session, and its first refresh token.
public struct SignIn: Sendable {
    /// The user, found or created by (provider, subject).
    public var user: UserProfile
    /// The new session: the `sid` of its tokens.
    public var sessionID: UUID
    /// When this sign-in happened: the `auth_time` of its ID tokens.
    public var authTime: Date
    /// The session's hard end: `authTime` + `ISSUER_SESSION_MAX_AGE` (SPEC §4.3).
    public var sessionExpiresAt: Date
    /// The session's first refresh token; only its hash was stored.
    public var refreshToken: RefreshToken
}

/// The user as tokens describe it (SPEC §4.1, §4.2): our stable id, never the provider's.
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
    public var subject: String { id.uuidString.lowercased() }
}
