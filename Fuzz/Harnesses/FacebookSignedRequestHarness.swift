import Crypto
import Foundation
import IssuerCore
import JOSE

/// Facebook's `signed_request` (docs/reference.md, "Facebook's callbacks"), which anyone can post
/// to the callbacks. Each input is read twice: as the whole `signed_request`, which must never be
/// accepted unless its MAC is the app secret's over its payload (checked here with Crypto, not the
/// parser's code); and as the JSON payload of a request signed with the right secret, accepted
/// exactly when the payload says HMAC-SHA256, a recent `issued_at` and a user id, and carries no
/// login's `code` or `oauth_token`. Fuzzed by
/// Fuzz/FacebookSignedRequest, replayed on its corpus by Tests/FuzzCorpusTests.
public enum FacebookSignedRequestHarness {
    private static let secret = "fuzz-app-secret"
    /// 2026-01-01T00:00:00Z; the seeds' `issued_at` is a little before it.
    private static let now = Date(timeIntervalSince1970: 1_767_225_600)

    /// One input; a failed check traps, as libFuzzer expects.
    public static func run(_ input: UnsafeRawBufferPointer) {
        let text = String(decoding: input, as: UTF8.self)

        // 1. The input as the whole signed_request.
        if let request = read(text) {
            let parts = text.split(separator: ".", omittingEmptySubsequences: false)
            precondition(parts.count == 2, "accepted \(text) without two parts")
            let expected = Base64URL.encode(Data(mac(String(parts[1]))))
            var signature = String(parts[0])
            while signature.hasSuffix("=") { signature.removeLast() }
            precondition(signature == expected, "accepted \(text) whose MAC is not the secret's")
            check(request)
        }

        // 2. The input as the payload of a correctly signed request.
        let payload = Base64URL.encode(Data(text.utf8))
        let signed = Base64URL.encode(Data(mac(payload))) + "." + payload
        let request = read(signed)
        let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
        let algorithm = (object?["algorithm"] as? String)?.uppercased()
        if let request {
            precondition(algorithm == "HMAC-SHA256", "accepted a payload whose algorithm is \(String(describing: algorithm))")
            check(request)
        } else if algorithm == "HMAC-SHA256", object?["code"] == nil, object?["oauth_token"] == nil, let userID = object?["user_id"] as? String, !userID.isEmpty, userID.utf8.count <= 255,
                  !userID.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }),
                  let issuedAt = object?["issued_at"] as? Int, (Int(now.timeIntervalSince1970) - 7 * 86_400 + 1...Int(now.timeIntervalSince1970)).contains(issuedAt)
        {
            preconditionFailure("refused a payload with the algorithm, a user id and a recent issued_at: \(text)")
        }
    }

    private static func read(_ text: String) -> FacebookSignedRequest? {
        try? FacebookSignedRequest(text, appSecret: Secret(secret), now: now)
    }

    private static func mac(_ payload: String) -> HashedAuthenticationCode<SHA256> {
        HMAC<SHA256>.authenticationCode(for: Data(payload.utf8), using: SymmetricKey(data: Data(secret.utf8)))
    }

    /// What every accepted request holds.
    private static func check(_ request: FacebookSignedRequest) {
        precondition(!request.userID.isEmpty && request.userID.utf8.count <= 255, "user id \(request.userID)")
        precondition(!request.userID.containsControlCharacters, "a user id with control characters")
        let age = now.timeIntervalSince(request.issuedAt)
        precondition(age <= 7 * 86_400 && age >= -60, "issued_at \(request.issuedAt) out of bounds")
    }
}
