import HTTPTypes

extension HTTPFields {
    /// The media type of `Content-Type` (RFC 9110 §8.3.1): what comes before its parameters, without
    /// the optional whitespace around it, in lowercase (type and subtype are case-insensitive);
    /// nil without the field. Read as bytes: Foundation's trimming bridges through `NSString`, which
    /// was measurable on every token request (docs/performance.md).
    var mediaType: String? {
        guard let value = self[.contentType] else { return nil }
        let isWhitespace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        let type = value.utf8.prefix { $0 != UInt8(ascii: ";") }.drop(while: isWhitespace)
        let trimmed = type.prefix(type.count - type.reversed().prefix(while: isWhitespace).count)
        return String(decoding: trimmed.map { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }
}
