import Foundation

extension KeyRingDirectory {
    /// Records `timing` in the ring's state, kept as the maximum with what is there (docs/reference.md, "Signing keys"; see
    /// ``SignerTiming`` for why), and answers the ring as read under the lock, which is the one a
    /// server must then sign with: had the ring been rotated between the server's lock-free read
    /// and this write, a key retired by that rotation must not be signed with on the strength of
    /// the earlier read. An empty ring is answered untouched: there is nothing to protect yet.
    public func recordSignerTiming(_ timing: SignerTiming) throws -> KeyRing {
        try modify { ring in
            guard !ring.isEmpty, !(ring.signerTiming?.covers(timing) ?? false) else { return (nil, ring) }
            let updated = try KeyRing(keys: ring.keys, signerTiming: timing.merged(with: ring.signerTiming))
            return (updated, updated)
        }
    }
}
