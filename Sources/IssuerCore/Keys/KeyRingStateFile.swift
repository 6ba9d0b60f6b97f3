import Foundation

/// The on-disk form of `ring.json` (docs/reference.md, "Signing keys": "the ring's state"): which keys are in the ring and
/// where each is in its life. The private keys themselves live in `<kid>.pem` next to it.
///
/// Versioned so that a later format is refused by an older binary rather than misread.
struct KeyRingStateFile: Codable {
    static let currentVersion = 1

    var version: Int
    var keys: [Entry]
    /// Optional, so version 1 files written before it existed still load, and binaries that
    /// predate it still read the ring (they ignore it: see ``SignerTiming``).
    var signers: SignerTiming?

    struct Entry: Codable {
        var kid: String
        var state: KeyState
        var createdAt: Date
        var activatedAt: Date?
        var retiredAt: Date?
        var publishedUntil: Date?
    }

    init(ring: KeyRing) {
        version = Self.currentVersion
        keys = ring.keys.map {
            Entry(
                kid: $0.kid, state: $0.state, createdAt: $0.createdAt, activatedAt: $0.activatedAt,
                retiredAt: $0.retiredAt, publishedUntil: $0.publishedUntil)
        }
        signers = ring.signerTiming
    }

    /// Whole-second ISO 8601 in UTC: readable in an editor and stable across encode/decode.
    func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        var data = try encoder.encode(self)
        data.append(UInt8(ascii: "\n"))
        return data
    }

    /// Decodes `ring.json`, turning the decoder's error into a short text that names the offending field.
    static func decode(_ data: Data, path: String) throws -> KeyRingStateFile {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        do {
            return try decoder.decode(KeyRingStateFile.self, from: data)
        } catch let error as DecodingError {
            throw KeyRingError.malformedStateFile(path: path, detail: Self.describe(error))
        }
    }

    private static func describe(_ error: DecodingError) -> String {
        func at(_ path: [any CodingKey]) -> String {
            path.isEmpty ? "" : " at " + path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context): return "missing \"\(key.stringValue)\"\(at(context.codingPath))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "wrong type\(at(context.codingPath)): \(context.debugDescription)"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "not valid JSON" : "invalid value\(at(context.codingPath)): \(context.debugDescription)"
        @unknown default: return "cannot be decoded"
        }
    }
}
