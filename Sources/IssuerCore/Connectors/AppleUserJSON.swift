import Foundation

/// The `user` member Apple posts on the first consent only:
/// `{"name": {"firstName": "…", "lastName": "…"}, "email": "…"}`. Read leniently: a part that is
/// missing, too long or holds control characters is dropped, never a reason to fail the sign-in.
package struct AppleUserJSON {
    package var givenName: String?
    package var familyName: String?

    package init(_ text: String?) {
        guard let text, text.utf8.count <= 4096, let data = text.data(using: .utf8),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let name = object["name"] as? [String: Any]
        else { return }
        givenName = Self.part(name["firstName"])
        familyName = Self.part(name["lastName"])
    }

    private static func part(_ value: Any?) -> String? {
        guard let text = value as? String, !text.isEmpty,
              text.utf8.count <= IdentityExchange.Request.maximumNamePartLength, !text.containsControlCharacters
        else { return nil }
        return text
    }
}
