/// Comparison of secrets whose running time does not depend on where they differ.
public enum ConstantTime {
    /// True if both byte strings are equal. Lengths are not secret here (hashes and nonces have
    /// public lengths), so a length mismatch answers at once.
    public static func equals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for index in lhs.indices { difference |= lhs[index] ^ rhs[index] }
        return difference == 0
    }
}
