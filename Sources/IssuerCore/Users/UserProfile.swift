import Foundation
import Postgres

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
    public var subject: String { id.uuidString.lowercased() }
}

extension UserProfile {
    /// Decodes a user from a row that has the columns `user_id`, `email`, `email_verified`,
    /// `given_name` and `family_name` (other columns are ignored). Every statement that answers a
    /// user selects them under these names (`u.id AS user_id`: a bare `id` would collide with the
    /// session's in a joined row), so a user is read one way wherever it is read.
    public init(row: PostgresRow) throws {
        self.init(
            id: try row.decode(column: "user_id"),
            email: try row.decodeIfPresent(column: "email"),
            emailVerified: try row.decodeIfPresent(column: "email_verified"),
            givenName: try row.decodeIfPresent(column: "given_name"),
            familyName: try row.decodeIfPresent(column: "family_name"))
    }
}
