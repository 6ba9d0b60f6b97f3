import Foundation
import HTTPTypes
import Hummingbird
import IssuerCore

/// docs/reference.md, "Signed-in devices": `GET /account/sessions` (the bearer alone) lists the
/// user's live sessions; `DELETE /account/sessions/{sid}` revokes one and `DELETE
/// /account/sessions` every other one, both with the two proofs of `DELETE /account`, read from
/// the request context where the authentication steps put them.
struct AccountSessionsEndpoint {
    let sessions: AccountSessions

    func register(on routes: RouteRegistrar) {
        routes.add(.accountSessions) { request, context in
            if request.method == .delete {
                try await sessions.revokeOthers(try context.requireSession().proven, logger: context.logger)
                return Response(status: .noContent, headers: [.cacheControl: "no-store"])
            }
            let (list, current) = try await sessions.list(bearer: try context.requireBearer())
            let body = try JSONSerialization.data(withJSONObject: ["sessions": list.map { Self.json($0, current: current) }], options: [.sortedKeys])
            return Response(
                status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"], body: .init(byteBuffer: ByteBuffer(data: body)))
        }
        routes.add(.accountSession) { _, context in
            try await sessions.revoke(
                sessionID: context.parameters.get("sid") ?? "", by: try context.requireSession().proven, logger: context.logger)
            return Response(status: .noContent, headers: [.cacheControl: "no-store"])
        }
    }

    /// One session as the user's list shows it: never a token, never an IP address.
    static func json(_ session: AccountSession, current: UUID) -> [String: Any] {
        [
            "sid": session.sessionID.lowercaseText, "client_id": session.clientID,
            "provider": session.provider ?? NSNull(), "created_at": session.createdAt.formatted(.iso8601),
            "last_used_at": session.lastUsedAt.formatted(.iso8601), "user_agent": session.userAgent ?? NSNull(),
            "current": session.sessionID == current,
        ]
    }
}
