extension JWSVerificationKey {
    /// The key's RFC 7638 thumbprint, whichever its type: what RFC 9449 §6 binds a token to (`jkt`).
    public var thumbprint: String {
        switch self {
        case .rsa(let key): key.thumbprint
        case .p256(let key): key.thumbprint
        }
    }
}
