import HTTPTypes

extension HTTPFields {
    /// The media type of `Content-Type` (RFC 9110 §8.3.1): what comes before its parameters, without
    /// the optional whitespace around it, in lowercase (type and subtype are case-insensitive);
    /// nil without the field. Read as bytes: Foundation's trimming bridges through `NSString`, which
    /// was measurable on every token request (docs/performance.md).
    var mediaType: String? {
        guard var value = self[.contentType] else { return nil }
        return value.withUTF8 { utf8 in
            let isWhitespace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
            var start = 0
            var end = utf8.firstIndex(of: UInt8(ascii: ";")) ?? utf8.count
            while start < end, isWhitespace(utf8[start]) { start += 1 }
            while end > start, isWhitespace(utf8[end - 1]) { end -= 1 }
            // ASCII letters only: the bytes of any other character are 0x80 or above and unchanged.
            return String(unsafeUninitializedCapacity: end - start) { output in
                for index in start..<end {
                    let byte = utf8[index]
                    output[index - start] = (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
                }
                return end - start
            }
        }
    }
}
