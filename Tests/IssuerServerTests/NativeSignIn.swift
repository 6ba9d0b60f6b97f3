import HTTPTypes
import HummingbirdTesting
import Testing
import TestSupport

/// A sign-in through the native exchange (docs/reference.md, "Native sign-in"): an Apple
/// identity token from the fixture's faked Apple posted to `/auth/apple/exchange`.
enum NativeSignIn {
    /// Signs `subject` in and answers the token response; a refused exchange fails the test.
    static func tokens(_ client: some TestClientProtocol, _ fixture: IssuerTestFixture, subject: String = "refresh.user", scope: String? = nil) async throws -> [String: Any] {
        var body: [String: Any] = ["id_token": try fixture.apple.identityToken(subject: subject)]
        if let scope { body["scope"] = scope }
        let response = try await client.postJSON("/auth/apple/exchange", body)
        #expect(response.status == .ok)
        return response.json
    }
}
