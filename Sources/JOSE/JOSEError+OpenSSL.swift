import COpenSSL

extension JOSEError {
    /// Builds `.openSSL` from the thread's libcrypto error queue and drains it, so a stale entry can never be
    /// reported against a later, unrelated call on the same thread.
    static func openSSLFailure(_ operation: String) -> JOSEError {
        let code = ERR_get_error()
        ERR_clear_error()
        guard code != 0 else { return .openSSL(operation) }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        let detail = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return .openSSL("\(operation): \(detail)")
    }

    /// Discards queued libcrypto errors after a failure that we report as a typed error instead.
    static func clearOpenSSLErrors() {
        ERR_clear_error()
    }
}
