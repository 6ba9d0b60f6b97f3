import Foundation
import IssuerCore

/// Signing key rings for tests: a real ring on disk, made the way `issuer keys init` makes it.
public enum TestKeyRing {
    /// A new directory holding an initialized ring (an active and a next key).
    public static func make(clock: any WallClock = SystemClock()) throws -> URL {
        let directory = TestDirectories.make("keys")
        let rotation = KeyRotation(
            store: KeyRingDirectory(directory: directory),
            policy: KeyRotationPolicy(longestTokenLifetime: .seconds(3600), reloadInterval: .seconds(5)), clock: clock)
        _ = try rotation.initialize()
        return directory
    }
}
