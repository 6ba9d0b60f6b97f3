import Foundation
import IssuerCore

extension DoctorCommand {
    /// `key ring` (loads as `serve` would load it, with an active and a next key) and
    /// `key rotation` (the active key's age against `rotationInterval`, and when rotation is
    /// due). The ring's rules are docs/operations.md's key rotation section. `unnamed`: why the
    /// ring cannot be looked at (an `--env-file` that does not name it), which fails the check.
    static func keyRingChecks(_ configuration: Configuration, unnamed: CommandFailure? = nil, rotationInterval: Duration, now: Date) -> [DoctorCheck] {
        if let reason = unnamed?.reason {
            return [.fail("key ring", reason), .warn("key rotation", "not checked: no valid ring")]
        }
        let store = KeyRingDirectory(directory: configuration.keysDirectory)
        let ring: KeyRing
        do {
            ring = try store.load()
        } catch let broken as KeyRingError where broken.isBroken {
            return [.fail("key ring", "\(broken)"), .warn("key rotation", "not checked: no valid ring")]
        } catch {
            return [.fail("key ring", "the ring in \(store.directory.path) is invalid: \(error)"), .warn("key rotation", "not checked: no valid ring")]
        }
        guard let active = ring.active else {
            let ringCheck: DoctorCheck = configuration.databaseURL == nil
                ? .warn("key ring", "the ring in \(store.directory.path) is empty; `issuer serve` creates it on the embedded database")
                : .fail("key ring", "the ring in \(store.directory.path) is empty; `issuer serve` refuses to start: run `issuer keys init`")
            return [ringCheck, .warn("key rotation", "not checked: the ring has no active key")]
        }
        let ringCheck: DoctorCheck = ring.next.map {
            .ok("key ring", "\(ring.keys.count) keys in \(store.directory.path): active \(active.kid), next \($0.kid)")
        } ?? .warn("key ring", "no next key in \(store.directory.path) (active \(active.kid)): the next rotation cannot happen without one; `issuer keys init` adds it")
        return [ringCheck, rotationCheck(active, interval: rotationInterval, now: now)]
    }

    /// Rotation is due `interval` after the active key was activated (created, for a ring that
    /// never recorded an activation), as `issuer keys rotate --if-older-than` decides it.
    static func rotationCheck(_ active: SigningKey, interval: Duration, now: Date) -> DoctorCheck {
        let since = active.activatedAt ?? active.createdAt
        let due = since.addingTimeInterval(interval.timeInterval)
        let age = ReadableInterval(now.timeIntervalSince(since))
        guard due > now else {
            return .warn("key rotation", "active key \(active.kid) is \(age) old; rotation was due \(due.ISO8601Format()) (\(ReadableInterval(now.timeIntervalSince(due))) ago); run `issuer keys rotate`, and check that the rotation timer runs")
        }
        return .ok("key rotation", "active key \(active.kid) is \(age) old; next rotation due \(due.ISO8601Format()) (in \(ReadableInterval(due.timeIntervalSince(now))))")
    }
}
