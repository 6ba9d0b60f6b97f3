import Foundation

extension DataProtocol {
    /// Runs `body` over the bytes without copying when they are already contiguous (`Data`, `[UInt8]`), because
    /// libcrypto needs one pointer and signing sits on the token-issuing hot path.
    func withContiguousRawBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        if let result = try withContiguousStorageIfAvailable({ try body(UnsafeRawBufferPointer($0)) }) {
            return result
        }
        return try Array(self).withUnsafeBytes(body)
    }
}
