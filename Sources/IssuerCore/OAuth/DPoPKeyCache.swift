import JOSE
import Synchronization

/// The proof headers this process has verified (RFC 9449 §4.2): a device keeps one key and sends the
/// same header — `typ`, `alg` and its `jwk` — with every proof, so the header's decoding, the key's
/// construction and its thumbprint (RFC 7638) are done once per header, not per request. Keyed by the
/// header segment's exact bytes, and filled only once a proof with that header verified, so a hit is a
/// header that passed every header check before. Bounded: when full it starts again empty, so
/// headers that never come back cannot grow it.
final class DPoPKeyCache: Sendable {
    struct Entry: Sendable {
        let header: JWSKnownHeader
        let key: JWSVerificationKey
        let thumbprint: String
    }

    /// Far more devices than refresh in one process's minute; each entry is a few hundred bytes.
    static let capacity = 10_000

    private let entries = Mutex<[String: Entry]>([:])

    /// The entry of the header segment `segment`, when a proof with it verified before.
    func entry(forSegment segment: Substring) -> Entry? {
        entries.withLock { $0[String(segment)] }
    }

    func insert(_ entry: Entry) {
        let segment = String(decoding: entry.header.segment, as: UTF8.self)
        entries.withLock { entries in
            if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
            entries[segment] = entry
        }
    }
}
