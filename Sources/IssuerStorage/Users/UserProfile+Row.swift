import Foundation
import IssuerCore
import Postgres

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
