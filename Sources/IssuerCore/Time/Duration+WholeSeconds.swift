extension Duration {
    /// The whole seconds of a lifetime, where a protocol or a stored format counts in seconds:
    /// `expires_in` (RFC 6749 §5.1), `exp` (RFC 7519 §4.1.4), the `ring.json` signer timing and
    /// the settings as written (docs/reference.md, "Configuration"). Lifetimes are configured in whole seconds, so nothing is lost.
    public var wholeSeconds: Int {
        Int(components.seconds)
    }
}
