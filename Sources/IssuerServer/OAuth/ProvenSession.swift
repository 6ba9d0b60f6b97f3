import IssuerCore

/// What `SessionProofMiddleware` puts on the request context of an account change
/// (docs/reference.md, "Two proofs of one session"): the session both proofs name, and the other
/// fields the route reads from the body the refresh token came in (`Route.sessionProofFields`),
/// so that body is read once.
struct ProvenSession: Sendable {
    /// The user and session the bearer and the refresh token both name.
    let proven: SessionProof.Proven
    /// The route's other body fields that are present, by name.
    let fields: [String: String]
}
