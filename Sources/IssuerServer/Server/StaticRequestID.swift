import NIOCore
import Synchronization

/// Request ids for the answers `StaticRouteHandler` writes: 32 lower-case hex digits like the
/// router's (`RequestIDMiddleware`), unique in the process (a random prefix and a counter), made
/// without a lock.
enum StaticRequestID {
    private static let prefix = UInt64.random(in: .min ... .max)
    private static let counter = Atomic<UInt64>(0)

    /// The first 16 digits, the same in every id of this process.
    static var prefixDigits: String {
        let digits = String(prefix, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    static func next() -> String {
        String(unsafeUninitializedCapacity: length) { write(into: $0) }
    }

    /// The next id written straight into `buffer`, for an answer written as bytes
    /// (`ReadyAnswerHandler`), which then needs no `String` of it.
    static func writeNext(into buffer: inout ByteBuffer) {
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: length) { raw in
            write(into: UnsafeMutableBufferPointer(start: raw.baseAddress!.assumingMemoryBound(to: UInt8.self), count: length))
        }
    }

    /// The number of digits in an id.
    private static let length = 32

    /// Takes the next count and writes the id's 32 digits at the start of `bytes`.
    private static func write(into bytes: UnsafeMutableBufferPointer<UInt8>) -> Int {
        let count = counter.wrappingAdd(1, ordering: .relaxed).newValue
        let digits: StaticString = "0123456789abcdef"
        func put(_ value: UInt64, at offset: Int) {
            for nibble in 0..<16 {
                bytes[offset + nibble] = digits.utf8Start[Int((value >> UInt64(60 - 4 * nibble)) & 0xF)]
            }
        }
        put(prefix, at: 0)
        put(count, at: 16)
        return length
    }
}
