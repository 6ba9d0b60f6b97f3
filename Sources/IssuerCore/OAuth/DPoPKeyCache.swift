import JOSE
import Synchronization

/// The proof headers this process has verified (RFC 9449 §4.2): a device keeps one key and sends the
/// same header — `typ`, `alg` and its `jwk` — with every proof, so the header's decoding, the key's
/// construction and its thumbprint (RFC 7638) are done once per header, not per request. Keyed by the
/// header segment's exact bytes, and filled only once a proof with that header passed every check,
/// so a hit is a header that passed every header check before. Bounded in entries and in each
/// entry's size (an honest header, even with an RSA-4096 key, is about 1 KiB; a longer one is
/// verified every time, never kept): when full it starts again empty, so headers that never come
/// back cannot grow it past a few megabytes.
final class DPoPKeyCache: Sendable {
    struct Entry: Sendable {
        let header: JWSKnownHeader
        let key: JWSVerificationKey
        let thumbprint: String
    }

    /// Far more devices than refresh in one process's minute.
    static let capacity = 10_000
    /// The longest header segment kept, in bytes.
    static let maximumSegmentLength = 2048

    private let entries = Mutex<[String: Entry]>([:])

    /// The entry of the header segment `segment`, when a proof with it verified before.
    func entry(forSegment segment: Substring) -> Entry? {
        entries.withLock { $0[String(segment)] }
    }

    func insert(_ entry: Entry) {
        guard entry.header.segment.count <= Self.maximumSegmentLength else { return }
        let segment = String(decoding: entry.header.segment, as: UTF8.self)
        entries.withLock { entries in
            if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
            entries[segment] = entry
        }
    }
}
