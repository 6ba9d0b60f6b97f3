import Crypto
import Foundation
import JOSE

/// Facebook's `signed_request`, as it POSTs one to an app's deauthorize and data-deletion
/// callbacks: `base64url(signature).base64url(payload)` without padding, the signature
/// HMAC-SHA256 of the encoded payload keyed with the app secret, the payload JSON with
/// `algorithm`, `issued_at` and `user_id`.
extension DevSigner {
    /// A `signed_request` about `userID` (app-scoped), issued at `issuedAt`, signed with `secret`.
    public static func facebookSignedRequest(userID: String, issuedAt: Date, secret: String = facebookAppSecret) throws -> String {
        let payload: [String: Any] = [
            "algorithm": "HMAC-SHA256", "issued_at": Int(issuedAt.timeIntervalSince1970.rounded(.down)), "user_id": userID,
        ]
        let encoded = Base64URL.encode(try JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys]))
        let signature = HMAC<SHA256>.authenticationCode(for: Data(encoded.utf8), using: SymmetricKey(data: Data(secret.utf8)))
        return Base64URL.encode(Array(signature)) + "." + encoded
    }
}
