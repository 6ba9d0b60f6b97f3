import Foundation

extension SigningKey {
    /// The same key promoted to active at `date` (SPEC §5 rotation).
    func activated(at date: Date) -> SigningKey {
        SigningKey(privateKey: privateKey, state: .active, createdAt: createdAt, activatedAt: date)
    }

    /// The same key retired at `date`, published until `publishedUntil` (SPEC §5 rotation).
    func retired(at date: Date, publishedUntil: Date) -> SigningKey {
        SigningKey(
            privateKey: privateKey, state: .retired, createdAt: createdAt,
            activatedAt: activatedAt, retiredAt: date, publishedUntil: publishedUntil)
    }
}
