import COpenSSL
import Foundation

/// Message digests backed by libcrypto, so that JOSE needs no second crypto library.
///
/// SHA-256 is what RFC 7638 §3 thumbprints and OpenID Connect Core §3.1.3.6 `at_hash`/`c_hash` are built on.
public enum JOSEDigest {
    /// SHA-256 (FIPS 180-4) of `data`, as used by RFC 7638 §3.1 and RS256 (RFC 7518 §3.3).
    public static func sha256(_ data: some DataProtocol) -> [UInt8] {
        data.withContiguousRawBytes { sha256(buffer: $0) }
    }

    private static func sha256(buffer: UnsafeRawBufferPointer) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let status = EVP_Digest(buffer.baseAddress, buffer.count, &digest, &length, EVP_sha256(), nil)
        // EVP_Digest can only fail on allocation failure; there is no meaningful recovery for a hash function.
        precondition(status == 1 && length == 32, "libcrypto SHA-256 failed")
        return Array(digest.prefix(Int(length)))
    }
}
