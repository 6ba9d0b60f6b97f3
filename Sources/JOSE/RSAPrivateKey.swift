import COpenSSL
import Foundation
import Synchronization

/// An RSA private key that produces RS256 signatures (RFC 7518 §3.3, RSASSA-PKCS1-v1_5 per RFC 8017 §8.2).
///
/// `@unchecked Sendable`: the wrapped `EVP_PKEY` is never mutated after construction, and OpenSSL 3 documents a
/// fully built key as safe to share across threads; every signature uses a signing context no other signature is
/// using, over a copy of the key of its own, so signing runs in parallel without shared locks or actor hops.
public final class RSAPrivateKey: @unchecked Sendable {
    private let pkey: OpaquePointer
    /// SHA-256, fetched from the provider once.
    private let sha256: OpaquePointer
    /// Prepared signing contexts (RSA, PKCS#1 v1.5, SHA-256) not in use, each made once and reused, which skips
    /// OpenSSL's per-call algorithm lookup and set-up, the main cost besides the RSA operation itself. The lock is
    /// held only to take or return one, never while signing, so concurrent signatures run in parallel; a context
    /// is used by one signature at a time. Each context signs with a copy of the key of its own
    /// (`makeSigningContext()`).
    private let idleContexts = Mutex<[SigningContext]>([])
    private static let maximumIdleContexts = 32

    /// The matching public key `(n, e)` (RFC 8017 §3.1), extracted once so that JWKS publication and verification
    /// never touch private material.
    public let publicKey: RSAPublicKey

    /// Generates a fresh key; RFC 7518 §3.3 requires at least 2048 bits for RS256.
    public static func generate(bits: Int = 2048) throws -> RSAPrivateKey {
        guard bits >= RSAPublicKey.minimumBits, bits <= RSAPublicKey.maximumBits else { throw JOSEError.invalidKey }
        guard let ctx = EVP_PKEY_CTX_new_from_name(nil, "RSA", nil) else {
            throw JOSEError.openSSLFailure("EVP_PKEY_CTX_new_from_name")
        }
        defer { EVP_PKEY_CTX_free(ctx) }
        var pkey: OpaquePointer?
        guard EVP_PKEY_keygen_init(ctx) == 1,
            EVP_PKEY_CTX_set_rsa_keygen_bits(ctx, Int32(bits)) == 1,
            EVP_PKEY_generate(ctx, &pkey) == 1,
            let pkey
        else { throw JOSEError.openSSLFailure("EVP_PKEY_generate") }
        return try RSAPrivateKey(owning: pkey)
    }

    /// Parses an unencrypted PEM private key (PKCS#8 `PRIVATE KEY`, RFC 5958 / RFC 7468 §10).
    ///
    /// Only RSA keys of at least 2048 bits are accepted (RFC 7518 §3.3); RSA-PSS-restricted keys are refused
    /// because they cannot produce PKCS#1 v1.5 signatures. Encrypted PEM is refused instead of prompting on a TTY.
    public convenience init(pemPKCS8 pem: String) throws {
        let bytes = Array(pem.utf8)
        guard !bytes.isEmpty, bytes.count <= Int(Int32.max) else { throw JOSEError.invalidKey }
        let parsed: OpaquePointer? = bytes.withUnsafeBytes { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            // A callback that supplies no passphrase, so encrypted keys fail instead of reading from the terminal.
            return PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in 0 }, nil)
        }
        guard let parsed else {
            JOSEError.clearOpenSSLErrors()
            throw JOSEError.invalidKey
        }
        try self.init(owning: parsed)
    }

    /// Takes ownership of `pkey` (freeing it on failure) after checking it is a usable RS256 key.
    private init(owning pkey: OpaquePointer) throws {
        guard EVP_PKEY_is_a(pkey, "RSA") == 1,
            EVP_PKEY_get_bits(pkey) >= RSAPublicKey.minimumBits,
            EVP_PKEY_get_bits(pkey) <= RSAPublicKey.maximumBits
        else {
            EVP_PKEY_free(pkey)
            throw JOSEError.invalidKey
        }
        do {
            self.publicKey = try RSAPublicKey(
                modulus: Self.bigEndianParameter(pkey, jose_OSSL_PKEY_PARAM_RSA_N()),
                exponent: Self.bigEndianParameter(pkey, jose_OSSL_PKEY_PARAM_RSA_E())
            )
        } catch {
            EVP_PKEY_free(pkey)
            throw error
        }
        guard let sha256 = EVP_MD_fetch(nil, "SHA256", nil) else {
            EVP_PKEY_free(pkey)
            throw JOSEError.openSSLFailure("EVP_MD_fetch")
        }
        self.pkey = pkey
        self.sha256 = sha256
        // One context now, so that a key OpenSSL cannot sign with is refused when it is loaded, not at its
        // first signature.
        guard let first = makeSigningContext() else {
            throw JOSEError.openSSLFailure("a signing context (EVP_PKEY_dup, EVP_PKEY_sign_init)")
        }
        idleContexts.withLock { $0.append(SigningContext(pointer: first)) }
    }

    deinit {
        idleContexts.withLock { $0.forEach { EVP_PKEY_CTX_free($0.pointer) } }
        EVP_MD_free(sha256)
        EVP_PKEY_free(pkey)
    }

    /// A signing context over a copy of the key of its own. OpenSSL takes an RSA key's write lock on every
    /// signature, and every thread but the first to sign blinds with one blinding shared under another lock; so
    /// contexts that share one key serialize there when many cores sign at once (as `openssl speed -multi`,
    /// whose processes each load their own key, never does). A copy per context leaves each lock to one
    /// signature at a time.
    private func makeSigningContext() -> OpaquePointer? {
        guard let copy = EVP_PKEY_dup(pkey) else { return nil }
        // The context holds a reference of its own.
        defer { EVP_PKEY_free(copy) }
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, copy, nil) else { return nil }
        guard EVP_PKEY_sign_init(context) == 1,
            EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING) == 1,
            EVP_PKEY_CTX_set_signature_md(context, sha256) == 1
        else {
            EVP_PKEY_CTX_free(context)
            return nil
        }
        return context
    }

    /// Serializes the key as unencrypted PKCS#8 PEM (RFC 7468 §10), the form `init(pemPKCS8:)` reads back.
    public func pemPKCS8() throws -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { throw JOSEError.openSSLFailure("BIO_new") }
        defer { BIO_free(bio) }
        guard PEM_write_bio_PKCS8PrivateKey(bio, pkey, nil, nil, 0, nil, nil) == 1 else {
            throw JOSEError.openSSLFailure("PEM_write_bio_PKCS8PrivateKey")
        }
        var data: UnsafeMutablePointer<CChar>?
        let length = jose_BIO_get_mem_data(bio, &data)
        guard length > 0, let data else { throw JOSEError.openSSLFailure("BIO_get_mem_data") }
        return UnsafeRawBufferPointer(start: data, count: length).withMemoryRebound(to: UInt8.self) {
            String(decoding: $0, as: UTF8.self)
        }
    }

    /// Produces an RS256 signature (RFC 7518 §3.3): RSASSA-PKCS1-v1_5 over SHA-256 of `message`.
    ///
    /// Each call hashes with its own digest state and signs with a prepared context no other call is using, which
    /// is what makes concurrent signing with one key safe without holding a lock while signing.
    public func sign(_ message: some DataProtocol) throws -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var digestLength: UInt32 = 0
        try message.withContiguousRawBytes { message in
            guard EVP_Digest(message.baseAddress, message.count, &digest, &digestLength, sha256, nil) == 1,
                digestLength == 32
            else { throw JOSEError.openSSLFailure("EVP_Digest") }
        }
        guard let ctx = idleContexts.withLock({ $0.popLast()?.pointer }) ?? makeSigningContext() else {
            throw JOSEError.openSSLFailure("a signing context (EVP_PKEY_dup, EVP_PKEY_sign_init)")
        }
        var length = Int(EVP_PKEY_get_size(pkey))
        var signature = [UInt8](repeating: 0, count: length)
        let signed = EVP_PKEY_sign(ctx, &signature, &length, digest, digest.count) == 1
        if signed {
            let kept = idleContexts.withLock { idle in
                guard idle.count < Self.maximumIdleContexts else { return false }
                idle.append(SigningContext(pointer: ctx))
                return true
            }
            if !kept { EVP_PKEY_CTX_free(ctx) }
        } else {
            // A context that failed may hold an error state; never reuse it.
            EVP_PKEY_CTX_free(ctx)
            throw JOSEError.openSSLFailure("EVP_PKEY_sign")
        }
        if length < signature.count { signature.removeLast(signature.count - length) }
        return signature
    }

    /// Reads an RSA component as big-endian bytes, the representation JWK `n`/`e` use (RFC 7518 §6.3.1).
    private static func bigEndianParameter(_ pkey: OpaquePointer, _ name: UnsafePointer<CChar>) throws -> [UInt8] {
        var bn: OpaquePointer?
        guard EVP_PKEY_get_bn_param(pkey, name, &bn) == 1, let bn else {
            throw JOSEError.openSSLFailure("EVP_PKEY_get_bn_param")
        }
        defer { BN_free(bn) }
        var bytes = [UInt8](repeating: 0, count: Int(jose_BN_num_bytes(bn)))
        _ = BN_bn2bin(bn, &bytes)
        return bytes
    }
}

/// An `EVP_PKEY_CTX` between two signatures. `@unchecked Sendable`: it moves between threads only through the idle
/// list's lock, and one signature at a time owns it.
private struct SigningContext: @unchecked Sendable {
    let pointer: OpaquePointer
}
