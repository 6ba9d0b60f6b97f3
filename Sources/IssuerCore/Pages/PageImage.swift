import Crypto
import Foundation

/// A logo from `ISSUER_PAGES_DIR` (the theme's, or a client's `logo`), read once at start and
/// served by the issuer itself under a name made of its SHA-256, so it can be cached for good
/// and the pages load nothing from another origin (docs/reference.md, "The pages people see").
public struct PageImage: Sendable, Equatable {
    /// The file's name as configured, relative to `ISSUER_PAGES_DIR`.
    public let file: String
    public let bytes: [UInt8]
    /// `image/png`, `image/jpeg`, `image/webp` or `image/svg+xml`, from the file's extension,
    /// which its first bytes must agree with.
    public let mediaType: String
    /// The name it is served under: 32 hex digits of its SHA-256 and its extension.
    public let assetName: String

    /// Large enough for any logo; a larger file is more likely a mistake than a logo.
    public static let maximumSize = 512 * 1024

    /// The extensions accepted, and their media types.
    static let mediaTypes: [String: String] = [
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "webp": "image/webp", "svg": "image/svg+xml",
    ]

    /// Why a logo was refused, phrased to follow its name.
    public struct Problem: Error, CustomStringConvertible {
        public let description: String
    }

    /// Reads `file` under `directory`: a relative path that stays inside it, of a type the
    /// pages show, at most `maximumSize` bytes.
    public init(file: String, in directory: URL) throws(Problem) {
        if let problem = Self.nameProblem(file) { throw Problem(description: problem) }
        let ext = (file as NSString).pathExtension.lowercased()
        guard let mediaType = Self.mediaTypes[ext] else {
            throw Problem(description: "must be a .png, .jpg, .webp or .svg file")
        }
        let url = directory.appendingPathComponent(file)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue,
              let data = try? Data(contentsOf: url)
        else { throw Problem(description: "is not a readable file in \(directory.path)") }
        guard !data.isEmpty, data.count <= Self.maximumSize else {
            throw Problem(description: "must hold 1 to \(Self.maximumSize / 1024) KiB (it holds \(data.count) bytes)")
        }
        let bytes = Array(data)
        guard Self.looks(like: mediaType, bytes) else {
            throw Problem(description: "does not hold what its extension says (\(mediaType))")
        }
        self.file = file
        self.bytes = bytes
        self.mediaType = mediaType
        let digest = SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
        assetName = digest.prefix(32) + "." + (ext == "jpeg" ? "jpg" : ext)
    }

    /// Why `file` cannot name a file inside the directory, or nil: relative, without `.` or `..`
    /// segments, backslashes or control characters.
    static func nameProblem(_ file: String) -> String? {
        let segments = file.split(separator: "/", omittingEmptySubsequences: false)
        if file.isEmpty || file.hasPrefix("/") || segments.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." })
            || file.contains("\\") || file.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "must be a file name relative to ISSUER_PAGES_DIR, without '..', '.' or empty segments"
        }
        return nil
    }

    /// Whether the first bytes are those of `mediaType` (its signature; for SVG, an `<svg`
    /// element near the start), so a file renamed by mistake is refused at start.
    static func looks(like mediaType: String, _ bytes: [UInt8]) -> Bool {
        switch mediaType {
        case "image/png": bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        case "image/jpeg": bytes.starts(with: [0xFF, 0xD8, 0xFF])
        case "image/webp": bytes.count >= 12 && bytes.starts(with: Array("RIFF".utf8)) && Array(bytes[8..<12]) == Array("WEBP".utf8)
        case "image/svg+xml": String(decoding: bytes.prefix(4096), as: UTF8.self).lowercased().contains("<svg")
        default: false
        }
    }
}
