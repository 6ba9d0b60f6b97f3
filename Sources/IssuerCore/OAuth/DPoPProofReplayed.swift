/// A DPoP proof whose `jti` was used before with its key (RFC 9449 §11.1), found by the statement
/// that records it: the request is `invalid_dpop_proof` and nothing else happened.
public struct DPoPProofReplayed: Error, Sendable {
    public init() {}
}
