import IssuerCore
import IssuerStorage

/// A sign-in as the native exchange hands it to the store (docs/reference.md, "Native sign-in"),
/// for the suites that write sessions through `SignInStore`.
enum SampleSignIn {
    static func request(subject: String, givenName: String? = nil, email: String? = "a@example.com") -> SignInRequest {
        SignInRequest(
            identity: ExternalIdentity(provider: "apple", subject: subject, audience: "com.example.app", email: email, emailVerified: true, isPrivateEmail: false),
            givenName: givenName, clientID: "clanboards-mobile", scopes: ["openid", "email"], nonce: "n",
            userAgent: "Tests/1.0", clientIP: "192.0.2.1")
    }
}
