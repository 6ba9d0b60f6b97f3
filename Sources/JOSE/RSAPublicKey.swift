import COpenSSL
import Foundation

/// An RSA public key used to verify RS256 signatures (RFC 7518 §3.3, RSASSA-PKCS1-v1_5 per RFC 8017 §8.2).
///
/// `@unchecked Sendable`: the wrapped `EVP_PKEY` is never mutated after construction, and OpenSSL 3 documents
/// a fully built key as safe to use concurrently; each verification gets its own `EVP_MD_CTX`.
public final class RSAPublicKey: @unchecked Sendable {
    /// RFC 7518 §3.3 requires at least 2048 bits for RS256.
    static let minimumBits = 2048
    /// OpenSSL's own ceiling (`OPENSSL_RSA_MAX_MODULUS_BITS`); larger keys only serve to make verification expensive.
    static let maximumBits = 16384

    let pkey: OpaquePointer

    /// The modulus `n` as an unsigned big-endian integer without leading zeros (RFC 7518 §6.3.1.1).
    public let modulus: [UInt8]
    /// The public exponent `e` as an unsigned big-endian integer without leading zeros (RFC 7518 §6.3.1.2).
    public let exponent: [UInt8]

    /// Builds a key from the JWK `n` and `e` members (RFC 7518 §6.3.1), already base64url-decoded.
    ///
    /// Leading zero octets are tolerated because some producers emit them despite RFC 7518 §6.3.1.1; the key is
    /// refused below 2048 bits (RFC 7518 §3.3) and when the exponent cannot be a valid RSA exponent.
    public init(modulus: [UInt8], exponent: [UInt8]) throws {
        let n = Array(modulus.drop { $0 == 0 })
        let e = Array(exponent.drop { $0 == 0 })
        let bits = n.isEmpty ? 0 : (n.count - 1) * 8 + (8 - n[0].leadingZeroBitCount)
        guard bits >= Self.minimumBits, bits <= Self.maximumBits else { throw JOSEError.invalidKey }
        // An even or unit exponent is never a valid RSA key; 64 bits is OpenSSL's limit for large moduli.
        guard let lastE = e.last, lastE & 1 == 1, e != [1], e.count <= 8 else { throw JOSEError.invalidKey }
        self.pkey = try Self.makePublicKey(n: n, e: e)
        self.modulus = n
        self.exponent = e
    }

    deinit {
        EVP_PKEY_free(pkey)
    }

    /// Verifies an RS256 signature (RFC 7518 §3.3) over `message`.
    ///
    /// Returns a plain `Bool` because every failure, malformed signature lengths included, means the same thing
    /// to a JWS validator: the signature is not valid (RFC 7515 §5.2 step 8).
    public func verify(signature: some DataProtocol, message: some DataProtocol) -> Bool {
        let signature = Array(signature)
        return message.withContiguousRawBytes { message in
            guard let ctx = EVP_MD_CTX_new() else { return false }
            defer { EVP_MD_CTX_free(ctx) }
            // PKCS#1 v1.5 is the default padding for RSA keys in EVP_DigestVerifyInit.
            guard EVP_DigestVerifyInit(ctx, nil, EVP_sha256(), nil, pkey) == 1 else {
                JOSEError.clearOpenSSLErrors()
                return false
            }
            let status = signature.withUnsafeBufferPointer { sig in
                EVP_DigestVerify(ctx, sig.baseAddress, sig.count, message.baseAddress, message.count)
            }
            if status != 1 { JOSEError.clearOpenSSLErrors() }
            return status == 1
        }
    }

    private static func makePublicKey(n: [UInt8], e: [UInt8]) throws -> OpaquePointer {
        guard let bnN = BN_bin2bn(n, Int32(n.count), nil) else { throw JOSEError.openSSLFailure("BN_bin2bn") }
        defer { BN_free(bnN) }
        guard let bnE = BN_bin2bn(e, Int32(e.count), nil) else { throw JOSEError.openSSLFailure("BN_bin2bn") }
        defer { BN_free(bnE) }
        guard let builder = OSSL_PARAM_BLD_new() else { throw JOSEError.openSSLFailure("OSSL_PARAM_BLD_new") }
        defer { OSSL_PARAM_BLD_free(builder) }
        guard OSSL_PARAM_BLD_push_BN(builder, jose_OSSL_PKEY_PARAM_RSA_N(), bnN) == 1,
            OSSL_PARAM_BLD_push_BN(builder, jose_OSSL_PKEY_PARAM_RSA_E(), bnE) == 1,
            let params = OSSL_PARAM_BLD_to_param(builder)
        else { throw JOSEError.openSSLFailure("OSSL_PARAM_BLD") }
        defer { OSSL_PARAM_free(params) }
        guard let ctx = EVP_PKEY_CTX_new_from_name(nil, "RSA", nil) else {
            throw JOSEError.openSSLFailure("EVP_PKEY_CTX_new_from_name")
        }
        defer { EVP_PKEY_CTX_free(ctx) }
        var pkey: OpaquePointer?
        guard EVP_PKEY_fromdata_init(ctx) == 1,
            EVP_PKEY_fromdata(ctx, &pkey, jose_EVP_PKEY_PUBLIC_KEY(), params) == 1,
            let pkey
        else {
            JOSEError.clearOpenSSLErrors()
            throw JOSEError.invalidKey
        }
        return pkey
    }
}
