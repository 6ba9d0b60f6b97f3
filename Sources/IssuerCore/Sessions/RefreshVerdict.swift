/// What the rotation statement decided about a presented refresh token (docs/reference.md, "Refresh tokens and sessions"), in the order
/// it checks: the first rule a token breaks is its verdict. The statement is the only place these
/// rules are checked, because it must decide under the row lock whether to rotate; Swift reads
/// the verdict and never re-derives it.
public enum RefreshVerdict: String, Sendable, Equatable, CaseIterable {
    /// The request's DPoP proof was used before (docs/reference.md, "DPoP"): nothing is touched,
    /// and the store reports it as `DPoPProofReplayed` before any verdict is read.
    case proofReplayed = "proof_replayed"
    /// The session was revoked.
    case revoked
    /// The session reached `ISSUER_SESSION_MAX_AGE`.
    case sessionExpired = "session_expired"
    /// The session is bound to a DPoP key (docs/reference.md, "DPoP") and the request carries no
    /// proof from it: refused without touching anything, spent or not, so a thief without the key
    /// neither refreshes nor gets the owner's session revoked.
    case keyMismatch = "key_mismatch"
    /// The token was issued to another client (of a live session).
    case anotherClient = "another_client"
    /// The request asks for scopes the (live) session was not granted (RFC 6749 §6).
    case scopeNotGranted = "scope_not_granted"
    /// The token was rotated before: a retry or a reuse, for `RefreshOutcome` to tell apart.
    case spent
    /// The token is past its own expiry and was never rotated.
    case expired
    /// This statement rotated the token and stored its successor.
    case rotated
}
