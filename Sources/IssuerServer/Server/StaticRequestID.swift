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
        let count = counter.wrappingAdd(1, ordering: .relaxed).newValue
        return String(unsafeUninitializedCapacity: 32) { bytes in
            let digits: StaticString = "0123456789abcdef"
            func put(_ value: UInt64, at offset: Int) {
                for nibble in 0..<16 {
                    bytes[offset + nibble] = digits.utf8Start[Int((value >> UInt64(60 - 4 * nibble)) & 0xF)]
                }
            }
            put(prefix, at: 0)
            put(count, at: 16)
            return 32
        }
    }
}
