import Foundation
import IssuerCore
import IssuerStorage

extension SessionDirectoryStore.SessionSummary {
    /// `active`, `incomplete`, `expired` or `revoked`: the one place a session's state is derived, for JSON
    /// (docs/cli.md) and, through `stateDescription(at:)`, for text. `incomplete` is a hosted sign-in whose
    /// code was never redeemed: it issued no token and is no signed-in device (docs/reference.md, "Signed-in devices").
    func state(at now: Date) -> String {
        revokedAt != nil ? "revoked" : (expiresAt < now ? "expired" : (tokensIssued ? "active" : "incomplete"))
    }

    /// The state as `sessions list` and `users show` print it: a revoked session says when and why.
    func stateDescription(at now: Date) -> String {
        guard let revokedAt else { return state(at: now) }
        return "revoked \(AdminCommand.format(revokedAt)) (\(revokedReason ?? "-"))"
    }

    /// One session in `sessions list` and `users show` (docs/cli.md). `rotations` counts the
    /// refresh-token rotations; the IP and user agent are the client's own words, escaped by JSON.
    func json(at now: Date) -> JSONValue {
        .object([
            "sid": .string(id.uuidString.lowercased()), "client_id": .string(clientID), "scope": .string(scope),
            "auth_time": .date(authTime), "last_used_at": .date(lastUsedAt), "expires_at": .date(expiresAt),
            "rotations": .number(generation), "state": .string(state(at: now)),
            "revoked_at": .date(revokedAt), "revoked_reason": .string(revokedReason),
            "client_ip": .string(clientIP), "user_agent": .string(userAgent),
        ])
    }
}
