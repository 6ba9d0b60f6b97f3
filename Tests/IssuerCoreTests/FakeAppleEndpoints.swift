import Crypto
import Foundation
import IssuerCore
import Synchronization
import TestSupport

/// Apple's token and revoke endpoints as a `FormPoster`: each answers one status and body, and
/// every post is counted by path (`/auth/token`, `/auth/revoke`).
final class FakeAppleEndpoints: FormPoster {
    struct Answer: Sendable {
        var status: Int
        var body: String = ""
    }

    static let tokenURL = URL(string: "https://apple.test/auth/token")!
    static let revokeURL = URL(string: "https://apple.test/auth/revoke")!

    let token: Answer
    let revoke: Answer
    private let posts = Mutex<[String: Int]>([:])

    init(token: Answer = Answer(status: 500), revoke: Answer = Answer(status: 200)) {
        self.token = token
        self.revoke = revoke
    }

    /// How many forms were posted to `path`.
    func posts(to path: String) -> Int { posts.withLock { $0[path, default: 0] } }

    func postForm(to url: URL, fields: [(String, String)], headers: [(String, String)], timeout: Duration) async throws -> FormPostAnswer {
        posts.withLock { $0[url.path, default: 0] += 1 }
        let answer = url.path == Self.revokeURL.path ? revoke : token
        return FormPostAnswer(status: answer.status, body: Data(answer.body.utf8))
    }

    /// Apple's client as `IssuerCore` talks to it, over these endpoints.
    func api(clock: any WallClock) -> AppleTokenAPI {
        AppleTokenAPI(
            transport: self,
            secret: AppleClientSecret(teamID: "TEAM", keyID: "KEY", key: AppleSigningKey(P256.Signing.PrivateKey()), clock: clock),
            tokenURL: Self.tokenURL, revokeURL: Self.revokeURL)
    }
}
