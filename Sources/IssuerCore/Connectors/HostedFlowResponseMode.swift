/// How a provider's answer reaches the issuer's callback (OAuth 2.0 Multiple Response Type
/// Encoding Practices §2.1, OAuth 2.0 Form Post Response Mode §2).
public enum HostedFlowResponseMode: Sendable, Equatable {
    /// `GET /auth/{id}/callback` with the answer in the query: any provider's id may be named in
    /// the path, so an id no connector has is not found (404).
    case query
    /// `POST` of an HTML form to a callback path of its own in the route table
    /// (`/auth/apple/callback`), which exists whether or not its connector is configured: without
    /// it, the hosted flow is not configured there (503, as the authorization endpoint says).
    case formPost
}
