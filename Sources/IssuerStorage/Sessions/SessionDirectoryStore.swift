import Foundation
import IssuerCore
import Postgres

/// The SQL of what operators see of users and sessions (docs/reference.md, "Admin CLI":
/// `issuer sessions`, `issuer users`). Read-only; revocation goes through `SessionRevocationStore`.
public struct SessionDirectoryStore: Sendable {
    /// One session as `issuer sessions list` shows it.
    public struct SessionSummary: Sendable {
        /// The session id: the `sid` of its tokens.
        public var id: UUID
        /// The client it was signed in through.
        public var clientID: String
        /// The granted scope, space-separated.
        public var scope: String
        /// When the user signed in: the ID tokens' `auth_time`.
        public var authTime: Date
        /// The sign-in or the latest refresh: derived from the newest refresh token's issue time,
        /// so that a refresh writes nothing to `sessions` (the hot path (docs/reference.md, "Refresh tokens and sessions")). Once the
        /// janitor has removed a session's expired tokens (an hour after they expire, when the
        /// session can no longer be refreshed anyway), this falls back to the sign-in.
        public var lastUsedAt: Date
        /// The session's hard end (`ISSUER_SESSION_MAX_AGE`); no refresh moves it.
        public var expiresAt: Date
        /// When it was revoked; nil if it was not.
        public var revokedAt: Date?
        /// Why it was revoked, e.g. `refresh token reuse`.
        public var revokedReason: String?
        /// The sign-in request's `User-Agent`.
        public var userAgent: String?
        /// The sign-in's client IP, as `ISSUER_TRUSTED_PROXIES` resolved it.
        public var clientIP: String?
        /// The newest refresh token's generation: how many times the session has rotated.
        public var generation: Int
        /// Whether it ever issued tokens: false for a hosted sign-in whose authorization code was
        /// never redeemed, which is no signed-in device (docs/reference.md, "Signed-in devices").
        public var tokensIssued: Bool
    }

    /// One provider account linked to a user, with what the provider last said about it
    /// (docs/reference.md, "Google's account-protection events").
    public struct IdentitySummary: Sendable {
        /// The provider's name (`apple`, a providers file `id`).
        public var provider: String
        /// The provider's `sub`.
        public var subject: String
        public var lastSignInAt: Date
        /// When the provider said the account was disabled; nil when it did not, or enabled it since.
        public var disabledAt: Date?
        /// The provider's reason (`hijacking` refuses sign-in with the identity).
        public var disabledReason: String?
        /// When the provider last asked for a credential change.
        public var credentialChangeRequiredAt: Date?
        /// An Apple team transfer (docs/reference.md, "Apple team transfer"): the receiving team
        /// an export named, and when the identity was re-keyed to that team's `sub`.
        public var transferTarget: String?
        public var exported = false
        public var rekeyedAt: Date?

        /// `-`, `exported` or `re-keyed`: where the identity is in a team transfer.
        public var transferStage: String { rekeyedAt != nil ? "re-keyed" : exported ? "exported" : "-" }

        /// Whether sign-in with this identity is refused.
        public var refusesSignIn: Bool { disabledReason == "hijacking" }
    }

    /// A user with its provider identities, as `issuer users show` prints it.
    public struct UserDetails: Sendable {
        /// The stored profile, as the provider last reported it.
        public var user: UserProfile
        /// Apple's relay-address flag, as last reported.
        public var isPrivateEmail: Bool?
        /// When the user was first seen.
        public var createdAt: Date
        /// Every linked provider account, oldest link first.
        public var identities: [IdentitySummary]
    }

    private let pool: ConnectionPool

    /// Read-only: every query runs on `pool`.
    public init(pool: ConnectionPool) {
        self.pool = pool
    }

    /// Every session of the user, newest first, revoked and expired ones included.
    public func sessions(userID: UUID) async throws -> [SessionSummary] {
        try await pool.query("""
            SELECT s.id, s.client_id, s.scope, s.auth_time, greatest(s.last_used_at, max(r.created_at)) AS last_used_at, s.expires_at,
                   s.revoked_at, s.revoked_reason, s.user_agent, s.client_ip, coalesce(max(r.generation), 0) AS generation,
                   \(AccountSessionsStore.tokensIssued) AS tokens_issued
            FROM sessions s LEFT JOIN refresh_tokens r ON r.session_id = s.id
            WHERE s.user_id = $1
            GROUP BY s.id ORDER BY s.created_at DESC
            """, [userID]).rows.map { row in
            SessionSummary(
                id: try row.decode(column: "id"), clientID: try row.decode(column: "client_id"), scope: try row.decode(column: "scope"),
                authTime: try row.decode(column: "auth_time"), lastUsedAt: try row.decode(column: "last_used_at"),
                expiresAt: try row.decode(column: "expires_at"), revokedAt: try row.decodeIfPresent(column: "revoked_at"),
                revokedReason: try row.decodeIfPresent(column: "revoked_reason"), userAgent: try row.decodeIfPresent(column: "user_agent"),
                clientIP: try row.decodeIfPresent(column: "client_ip"), generation: try row.decode(column: "generation"),
                tokensIssued: try row.decode(column: "tokens_issued"))
        }
    }

    /// The user and its identities; nil when no user has that id.
    public func user(id: UUID) async throws -> UserDetails? {
        let rows = try await pool.query("""
            SELECT u.id AS user_id, u.email, u.email_verified, u.given_name, u.family_name, u.is_private_email, u.created_at,
                   i.provider, i.subject, i.last_sign_in_at, i.disabled_at, i.disabled_reason, i.credential_change_required_at,
                   i.transfer_sub IS NOT NULL AS exported, i.transfer_target, i.rekeyed_at
            FROM users u LEFT JOIN identities i ON i.user_id = u.id
            WHERE u.id = $1 ORDER BY i.created_at
            """, [id]).rows
        guard let first = rows.first else { return nil }
        let identities = try rows.compactMap { row -> IdentitySummary? in
            guard let provider: String = try row.decodeIfPresent(column: "provider") else { return nil }
            var summary = IdentitySummary(
                provider: provider, subject: try row.decode(column: "subject"), lastSignInAt: try row.decode(column: "last_sign_in_at"),
                disabledAt: try row.decodeIfPresent(column: "disabled_at"), disabledReason: try row.decodeIfPresent(column: "disabled_reason"),
                credentialChangeRequiredAt: try row.decodeIfPresent(column: "credential_change_required_at"))
            summary.exported = try row.decode(column: "exported")
            summary.transferTarget = try row.decodeIfPresent(column: "transfer_target")
            summary.rekeyedAt = try row.decodeIfPresent(column: "rekeyed_at")
            return summary
        }
        return UserDetails(
            user: try UserProfile(row: first), isPrivateEmail: try first.decodeIfPresent(column: "is_private_email"),
            createdAt: try first.decode(column: "created_at"), identities: identities)
    }

    /// The users a support request can name (docs/reference.md, "Admin CLI", `issuer users find`):
    /// by an e-mail address (the user's, or any of its identities', case-insensitively), or by a
    /// provider's `sub`. Each with its identities, at most 50 users.
    public func find(email: String? = nil, provider: String? = nil, subject: String? = nil) async throws -> [UserDetails] {
        let ids = try await pool.query("""
            SELECT DISTINCT u.id FROM users u LEFT JOIN identities i ON i.user_id = u.id
            WHERE ($1::text IS NOT NULL AND (lower(u.email) = lower($1) OR lower(i.email) = lower($1)))
               OR ($2::text IS NOT NULL AND i.provider = $2 AND i.subject = $3)
            LIMIT 50
            """, [email, provider, subject]).rows.map { try $0.decode(UUID.self, column: "id") }
        var found: [UserDetails] = []
        for id in ids {
            if let details = try await user(id: id) { found.append(details) }
        }
        return found
    }
}
