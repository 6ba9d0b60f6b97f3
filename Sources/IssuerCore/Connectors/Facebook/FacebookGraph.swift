import Crypto
import Foundation

/// Facebook's Graph API as the Facebook connector asks it (docs/reference.md, "Facebook"). A
/// Facebook access token proves nothing by itself — one minted for another app would sign in
/// just as well (the token substitution attack) — so it is checked twice: `debug_token` with the
/// app access token says whose it is (`is_valid`, `type: USER`, `app_id`, `expires_at`), then
/// `/me` with `appsecret_proof` says who it names, which must be the same user. Every call has
/// the 5-second deadline and 64 KiB answer of every remote call; the tokens are in the URL's
/// query, as the Graph API takes them, and never in a log line or an error.
public struct FacebookGraph: Sendable {
    /// Who an access token belongs to, as `/me` answers.
    public struct User: Sendable, Equatable {
        /// The app-scoped user id.
        public var id: String
        public var name: String?
        public var firstName: String?
        public var lastName: String?
        public var email: String?
    }

    /// What removing the app's permissions ended in.
    public enum PermissionsRemoval: Sendable, Equatable {
        /// Facebook removed them.
        case removed
        /// The user or the permission is already gone: nothing is left to remove.
        case alreadyGone
        /// Try again later; the reason names no token.
        case failed(String)
    }

    /// docs/reference.md, "Faults and bad input".
    public static let deadline: Duration = .seconds(5)
    /// Graph error codes that mean "slow down" (developers.facebook.com, "Graph API rate limiting").
    static let throttlingCodes: Set<Int> = [4, 17, 32, 613]

    private let appID: String
    private let appSecret: Secret<String>
    /// `graph_url` + `/` + `graph_version`.
    private let root: URL
    private let transport: any RemoteRequester
    private let clock: any WallClock

    public init(appID: String, appSecret: Secret<String>, graphURL: URL, graphVersion: String, transport: any RemoteRequester, clock: any WallClock) {
        self.appID = appID
        self.appSecret = appSecret
        self.root = graphURL.appendingPathComponent(graphVersion)
        self.transport = transport
        self.clock = clock
    }

    /// The app access token (`app_id|app_secret`) the Graph API takes for the app's own calls.
    private var appAccessToken: String { appID + "|" + appSecret.revealed }

    /// `appsecret_proof`: hex HMAC-SHA256 of the user's token keyed with the app secret, so that a
    /// token alone, without the secret, makes no call on the app's behalf.
    static func appSecretProof(for token: String, secret: String) -> String {
        HMAC<SHA256>.authenticationCode(for: Data(token.utf8), using: SymmetricKey(data: Data(secret.utf8)))
            .map { String(format: "%02x", $0) }.joined()
    }

    /// The user `accessToken` belongs to, when it is a live user token of this app.
    public func user(accessToken: String) async throws(IdentityTokenError) -> User {
        let debug = try await call("GET", "debug_token", query: [("input_token", accessToken), ("access_token", appAccessToken)])
        guard let data = debug["data"] as? [String: Any] else { throw .rejected("debug_token answered no data") }
        guard data["is_valid"] as? Bool == true else { throw .rejected("debug_token: not valid") }
        guard data["type"] as? String == "USER" else { throw .rejected("debug_token: not a user token") }
        guard Self.text(data["app_id"]) == appID else { throw .rejected("debug_token: another app's token") }
        // 0 is a token that does not expire; any other time must be ahead.
        guard let expiresAt = Self.number(data["expires_at"]),
              expiresAt == 0 || expiresAt > clock.now.timeIntervalSince1970
        else { throw .rejected("debug_token: expired") }
        guard let userID = Self.text(data["user_id"]), !userID.isEmpty else { throw .rejected("debug_token: no user_id") }
        let me = try await call("GET", "me", query: [
            ("fields", "id,name,first_name,last_name,email"), ("access_token", accessToken),
            ("appsecret_proof", Self.appSecretProof(for: accessToken, secret: appSecret.revealed)),
        ])
        guard Self.text(me["id"]) == userID else { throw .rejected("/me names another user than debug_token") }
        return User(
            id: userID, name: Self.profileText(me["name"]), firstName: Self.profileText(me["first_name"]),
            lastName: Self.profileText(me["last_name"]), email: Self.profileText(me["email"]))
    }

    /// Removes the app's permissions for `userID` (`DELETE /{user-id}/permissions`), as an
    /// account's deletion asks (docs/reference.md, "Account deletion"). Graph's code 100 (the
    /// user or the permission does not exist: the person removed the app) ends it; anything else
    /// that is not a success, an invalid app token included, is tried again.
    public func removePermissions(userID: String) async -> PermissionsRemoval {
        do throws(GraphFailure) {
            let answer = try await request("DELETE", userID + "/permissions", query: [("access_token", appAccessToken)])
            return answer["success"] as? Bool == true ? .removed : .failed("Facebook did not answer success")
        } catch .refused(_, code: 100) {
            return .alreadyGone
        } catch {
            return .failed(error.reason)
        }
    }

    /// Why a Graph call did not answer an object.
    enum GraphFailure: Error {
        /// Unreachable, slow, `5xx` or throttling.
        case unavailable(String)
        /// Any other Graph error: its HTTP status and Graph error code.
        case refused(status: Int, code: Int?)

        /// In words for a log line: never a token.
        var reason: String {
            switch self {
            case .unavailable(let reason): reason
            case .refused(let status, let code): "Graph API refused (status \(status), code \(code.map(String.init) ?? "none"))"
            }
        }
    }

    /// One call: the answer's JSON object, or `IdentityTokenError`'s view of its failure.
    private func call(_ method: String, _ path: String, query: [(String, String)]) async throws(IdentityTokenError) -> [String: Any] {
        do throws(GraphFailure) {
            return try await request(method, path, query: query)
        } catch {
            switch error {
            case .unavailable(let reason): throw .providerUnavailable(reason)
            case .refused: throw .rejected(error.reason)
            }
        }
    }

    /// One call: the answer's JSON object. Throttling, a 5xx, no answer or one that is not the
    /// Graph API's is `unavailable`; any other Graph error is `refused`, naming its code only.
    private func request(_ method: String, _ path: String, query: [(String, String)]) async throws(GraphFailure) -> [String: Any] {
        var components = URLComponents(url: root.appendingPathComponent(path), resolvingAgainstBaseURL: false)
        components?.percentEncodedQuery = query.map { Self.queryEncoded($0.0) + "=" + Self.queryEncoded($0.1) }.joined(separator: "&")
        guard let url = components?.url else { throw .unavailable("the Graph API URL cannot be formed") }
        let answer: FormPostAnswer
        do {
            answer = try await transport.send(method, to: url, timeout: Self.deadline)
        } catch {
            throw .unavailable("Graph API \(path.split(separator: "/").last ?? ""): \(RemoteFetchFailure(of: error).summary)")
        }
        let object = (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any]
        let graphError = object?["error"] as? [String: Any]
        let code = Self.number(graphError?["code"]).flatMap { Int(exactly: $0) }
        if let code, Self.throttlingCodes.contains(code) { throw .unavailable("Graph API throttling (code \(code))") }
        if answer.status >= 500 { throw .unavailable("Graph API answered \(answer.status)") }
        // Not an answer of the Graph API at all (a captive portal's page, a proxy's 407): something
        // between us and Facebook, not the person's token.
        guard let object, (200..<300).contains(answer.status) || graphError != nil else {
            throw .unavailable("an answer that is not the Graph API's (HTTP \(answer.status))")
        }
        guard (200..<300).contains(answer.status), graphError == nil else {
            throw .refused(status: answer.status, code: code)
        }
        return object
    }

    /// RFC 3986 unreserved characters only: a token's `|`, `+` or `/` must reach Facebook as they are.
    static func queryEncoded(_ text: String) -> String {
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }

    /// Graph ids are strings, but a whole number is read as one too.
    private static func text(_ value: Any?) -> String? {
        if let text = value as? String { return text }
        return (value as? Int).map(String.init)
    }

    private static func number(_ value: Any?) -> Double? {
        SecurityEventClaims.number(value, inText: false)
    }

    /// A profile field kept on the user: a string of at most 256 bytes without control characters, else dropped.
    private static func profileText(_ value: Any?) -> String? {
        guard let text = value as? String, !text.isEmpty, text.utf8.count <= 256, !text.containsControlCharacters else { return nil }
        return text
    }
}
