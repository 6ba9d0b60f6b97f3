import Foundation

/// A completed sign-in: who, which session, and its first refresh token.
public struct SignIn: Sendable {
    public var user: UserProfile
    public var sessionID: UUID
    public var authTime: Date
    public var refreshToken: RefreshToken
}

/// The user as tokens describe it (SPEC §4.1, §4.2): our stable id, never the provider's.
public struct UserProfile: Sendable, Equatable {
    public var id: UUID
    public var email: String?
    public var emailVerified: Bool?
    public var givenName: String?
    public var familyName: String?

    /// OIDC Core §5.1 `name`: the full name, when any part is known.
    public var name: String? {
        let parts = [givenName, familyName].compactMap { $0 }.filter { !$0.isEmpty }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }

    /// Our `sub`: the lowercase UUID.
    public var subject: String { id.uuidString.lowercased() }
}
