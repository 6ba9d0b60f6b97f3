import Foundation

extension SigningKey {
    /// The same key promoted to active at `date` (docs/reference.md, "Signing keys" rotation).
    func activated(at date: Date) -> SigningKey {
        SigningKey(privateKey: privateKey, state: .active, createdAt: createdAt, activatedAt: date)
    }

    /// The same key retired at `date`, published until `publishedUntil` (docs/reference.md, "Signing keys" rotation).
    func retired(at date: Date, publishedUntil: Date) -> SigningKey {
        SigningKey(
            privateKey: privateKey, state: .retired, createdAt: createdAt,
            activatedAt: activatedAt, retiredAt: date, publishedUntil: publishedUntil)
    }

    /// For a retired key, the same key published at least as long as `policy` asks from its
    /// `retiredAt` (docs/reference.md, "Signing keys"); any other key unchanged.
    func publishedAtLeast(per policy: KeyRotationPolicy) -> SigningKey {
        guard state == .retired, let retiredAt, let publishedUntil else { return self }
        let required = policy.publishedUntil(retiredAt: retiredAt)
        return required > publishedUntil ? retired(at: retiredAt, publishedUntil: required) : self
    }
}
