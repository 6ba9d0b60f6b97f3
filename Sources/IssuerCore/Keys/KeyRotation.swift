import Foundation
import JOSE

/// The key lifecycle (docs/reference.md, "Signing keys") — init, rotate, prune — with its timing enforced, not advised.
///
/// Every operation is one ``KeyRingDirectory/modify(_:)``: it decides on the ring as it is on disk
/// while holding the directory lock, so concurrent runs (two cron hosts, an operator and cron)
/// serialize and the second one sees the first one's result. The clock is injected so the timing
/// rules are testable. Times recorded in the ring are whole seconds, as `ring.json` stores them.
public struct KeyRotation: Sendable {
    /// The ring directory (docs/reference.md, "Signing keys").
    public let store: KeyRingDirectory
    /// The docs/reference.md, "Signing keys" timing.
    public let policy: KeyRotationPolicy
    /// Where "now" comes from (docs/reference.md, "Signing keys").
    public let clock: any WallClock
    /// Makes a new RSA key of the given size; injectable like the clock, because generation is the
    /// slow part of every operation and tests that rotate hundreds of times can reuse keys (docs/reference.md, "Signing keys").
    public let generateKey: @Sendable (_ bits: Int) throws -> RSAPrivateKey

    /// An operator of the ring in `store` under `policy` (docs/reference.md, "Signing keys"); new keys come from `generateKey`.
    public init(
        store: KeyRingDirectory, policy: KeyRotationPolicy, clock: any WallClock,
        generateKey: @escaping @Sendable (_ bits: Int) throws -> RSAPrivateKey = { try RSAPrivateKey.generate(bits: $0) }
    ) {
        self.store = store
        self.policy = policy
        self.clock = clock
        self.generateKey = generateKey
    }

    private var now: Date {
        Date(timeIntervalSince1970: clock.now.timeIntervalSince1970.rounded(.down))
    }

    private func generateKey(state: KeyState, at date: Date) throws -> SigningKey {
        let privateKey = try generateKey(policy.keyBits)
        return state == .active
            ? SigningKey(privateKey: privateKey, state: .active, createdAt: date, activatedAt: date)
            : SigningKey(privateKey: privateKey, state: state, createdAt: date)
    }

    /// `issuer keys init` (docs/reference.md, "Admin CLI"): creates an active and a next key when the ring is empty, adds
    /// a next key when only that is missing, and otherwise changes nothing and says so. Key files without the `ring.json`
    /// naming them are not an empty ring: the store's read refuses them (``KeyRingError/brokenRing(directory:keyFiles:)``),
    /// so no second ring is ever made over existing keys.
    public func initialize() throws -> KeyInitialization {
        try store.modify { ring in
            let now = self.now
            if ring.isEmpty {
                let active = try generateKey(state: .active, at: now)
                let next = try generateKey(state: .next, at: now)
                let updated = try KeyRing(keys: [active, next])
                return (updated, KeyInitialization(
                    ring: updated, created: [active, next], change: .createdRing(activeKid: active.kid, nextKid: next.kid),
                    directory: store.directory.path))
            }
            if ring.next == nil {
                let next = try generateKey(state: .next, at: now)
                let updated = try KeyRing(keys: ring.keys + [next], signerTiming: ring.signerTiming)
                return (updated, KeyInitialization(
                    ring: updated, created: [next], change: .addedNextKey(kid: next.kid, promotableAt: policy.promotableAt(createdAt: now)),
                    directory: store.directory.path))
            }
            return (nil, KeyInitialization(ring: ring, created: [], change: .none, directory: store.directory.path))
        }
    }

    /// `issuer keys rotate` (docs/reference.md, "Signing keys"): next → active, active → retired, and a new next key.
    ///
    /// Throws ``KeyRotationError/tooEarly(nextKid:enteredAt:allowedAt:now:)`` while the next key has
    /// been published for less than ``KeyRotationPolicy/promotionDelay``, unless `force`; a forced
    /// early rotation says what it risked (``CompletedRotation/forced``). With `force` and no next key at all, a fresh key is made
    /// active at once (the leaked-key emergency on a hand-edited ring).
    public func rotate(force: Bool = false) throws -> CompletedRotation {
        try store.modify { ring in
            let rotation = try rotation(of: ring, at: now, force: force)
            return (rotation.ring, rotation)
        }
    }

    /// `issuer keys rotate --if-older-than` (docs/reference.md, "Signing keys" and "Admin CLI"), for cron: rotates only when the active
    /// key has been active for at least `age` and the next key may be promoted; otherwise does
    /// nothing and says why. When due but the ring lacks a next key, it adds one, so the next run can rotate.
    public func rotateIfOlderThan(_ age: Duration) throws -> KeyRotationOutcome {
        try store.modify { ring in
            let now = self.now
            guard let active = ring.active else { throw KeyRotationError.emptyRing(directory: store.directory.path) }
            let activatedAt = active.activatedAt ?? active.createdAt
            let dueAt = activatedAt.addingTimeInterval(age.timeInterval)
            guard now >= dueAt else {
                return (nil, .skipped(.notDue(activeKid: active.kid, activatedAt: activatedAt, minimumAge: age, dueAt: dueAt, now: now)))
            }
            guard let next = ring.next else {
                let next = try generateKey(state: .next, at: now)
                let updated = try KeyRing(keys: ring.keys + [next], signerTiming: ring.signerTiming)
                return (updated, .skipped(.addedNextKey(activeKid: active.kid, nextKid: next.kid, promotableAt: policy.promotableAt(createdAt: now))))
            }
            let allowedAt = policy.promotableAt(createdAt: next.createdAt)
            guard now >= allowedAt else {
                return (nil, .skipped(.tooEarly(.tooEarly(nextKid: next.kid, enteredAt: next.createdAt, allowedAt: allowedAt, now: now))))
            }
            let rotation = try rotation(of: ring, at: now, force: false)
            return (rotation.ring, .rotated(rotation))
        }
    }

    /// The rotated ring; pure but for generating the new next key.
    private func rotation(of ring: KeyRing, at now: Date, force: Bool) throws -> CompletedRotation {
        guard let active = ring.active else { throw KeyRotationError.emptyRing(directory: store.directory.path) }
        let promoted: SigningKey
        var forced: ForcedRotation?
        if let next = ring.next {
            let allowedAt = policy.promotableAt(createdAt: next.createdAt)
            if now < allowedAt {
                guard force else {
                    throw KeyRotationError.tooEarly(nextKid: next.kid, enteredAt: next.createdAt, allowedAt: allowedAt, now: now)
                }
                forced = .promotedEarly(
                    kid: next.kid, publishedAt: next.createdAt, promotableAt: allowedAt, promotionDelay: policy.promotionDelay)
            }
            promoted = next.activated(at: now)
        } else {
            guard force else { throw KeyRotationError.noNextKey(activeKid: active.kid) }
            promoted = try generateKey(state: .active, at: now)
            forced = .promotedUnpublished(kid: promoted.kid, promotionDelay: policy.promotionDelay)
        }
        let retired = active.retired(at: now, publishedUntil: policy.publishedUntil(retiredAt: now))
        let newNext = try generateKey(state: .next, at: now)
        let updated = try KeyRing(keys: [promoted, newNext, retired] + ring.retired, signerTiming: ring.signerTiming)
        // The ring may have lengthened the window to what the servers recorded (SignerTiming).
        let recorded = updated.key(kid: retired.kid) ?? retired
        return CompletedRotation(ring: updated, promoted: promoted, retired: recorded, next: newNext, forced: forced, rotatedAt: now)
    }

    /// When prune may remove the retired `key` (docs/reference.md, "Signing keys"): not before its `publishedUntil` (which
    /// the ring already lengthened to what the servers recorded, see ``SignerTiming``), nor before
    /// what this command's own policy asks, whichever is later. Neither source alone is trusted
    /// to know the servers' token lifetimes.
    public func prunableAt(_ key: SigningKey) -> Date? {
        guard key.state == .retired, let retiredAt = key.retiredAt, let publishedUntil = key.publishedUntil else { return nil }
        return max(publishedUntil, policy.publishedUntil(retiredAt: retiredAt))
    }

    /// `issuer keys prune` (docs/reference.md, "Signing keys"): removes retired keys whose ``prunableAt(_:)`` has passed;
    /// with `force`, every retired key, saying which were removed early (``KeyPruning/forced``).
    public func prune(force: Bool = false) throws -> KeyPruning {
        try store.modify { ring in
            let now = self.now
            let retired = ring.retired
            let isDue = { (key: SigningKey) in prunableAt(key).map { now >= $0 } ?? false }
            let removed = retired.filter { force || isDue($0) }
            guard !removed.isEmpty else {
                return (nil, KeyPruning(
                    ring: ring, removed: [], forced: nil, nextPrunableAt: retired.compactMap(prunableAt).min(), prunedAt: now))
            }
            let early = removed.filter { !isDue($0) }
            let forced = early.compactMap(prunableAt).max().map { (kids: early.map(\.kid), prunableAt: $0) }
            let removedKids = Set(removed.map(\.kid))
            let updated = try KeyRing(keys: ring.keys.filter { !removedKids.contains($0.kid) }, signerTiming: ring.signerTiming)
            return (updated, KeyPruning(ring: updated, removed: removed, forced: forced, nextPrunableAt: nil, prunedAt: now))
        }
    }
}
