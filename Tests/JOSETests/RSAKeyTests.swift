import Foundation
import JOSE
import Testing
import TestSupport

@Suite struct RSAKeyTests {
    @Test func pemRoundTripPreservesTheKey() throws {
        let key = TestRSAKeys.a
        let pem = try key.pemPKCS8()
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let parsed = try RSAPrivateKey(pemPKCS8: pem)
        #expect(parsed.publicKey.modulus == key.publicKey.modulus)
        #expect(parsed.publicKey.exponent == key.publicKey.exponent)
        let message = Array("round trip".utf8)
        #expect(key.publicKey.verify(signature: try parsed.sign(message), message: message))
    }

    @Test func generatedKeyHasRequestedSize() throws {
        let key = try RSAPrivateKey.generate(bits: 3072)
        #expect(key.publicKey.modulus.count == 384)
        #expect(key.publicKey.exponent == [0x01, 0x00, 0x01])
    }

    @Test func generateRefusesSmallKeys() {
        #expect(throws: JOSEError.invalidKey) { try RSAPrivateKey.generate(bits: 1024) }
    }

    @Test func parsesKeysFromTheOpenSSLCLI() throws {
        let pem = try CommandLineTool.openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"])
        let key = try RSAPrivateKey(pemPKCS8: pem)
        #expect(key.publicKey.modulus.count == 256)
    }

    @Test(arguments: ["", "garbage", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"])
    func rejectsGarbagePEM(_ pem: String) {
        #expect(throws: JOSEError.invalidKey) { try RSAPrivateKey(pemPKCS8: pem) }
    }

    @Test func rejects1024BitKey() throws {
        let pem = try CommandLineTool.openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024"])
        #expect(throws: JOSEError.invalidKey) { try RSAPrivateKey(pemPKCS8: pem) }
    }

    @Test func rejectsECKey() throws {
        let pem = try CommandLineTool.openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"])
        #expect(pem.contains("BEGIN PRIVATE KEY"))
        #expect(throws: JOSEError.invalidKey) { try RSAPrivateKey(pemPKCS8: pem) }
    }

    @Test func rejectsRSAPSSRestrictedKey() throws {
        let pem = try CommandLineTool.openssl(["genpkey", "-algorithm", "RSA-PSS", "-pkeyopt", "rsa_keygen_bits:2048"])
        #expect(throws: JOSEError.invalidKey) { try RSAPrivateKey(pemPKCS8: pem) }
    }

    @Test func rejectsEncryptedPEMWithoutPrompting() throws {
        let pem = try CommandLineTool.openssl([
            "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-aes-256-cbc", "-pass", "pass:secret",
        ])
        #expect(pem.contains("ENCRYPTED"))
        #expect(throws: JOSEError.invalidKey) { try RSAPrivateKey(pemPKCS8: pem) }
    }

    @Test func signVerifyRoundTripAndFailures() throws {
        let key = TestRSAKeys.a
        let message = Array("payload".utf8)
        let signature = try key.sign(message)
        #expect(signature.count == 256)
        #expect(key.publicKey.verify(signature: signature, message: message))
        #expect(!key.publicKey.verify(signature: signature, message: Array("payloaD".utf8)))
        var tampered = signature
        tampered[100] ^= 0x01
        #expect(!key.publicKey.verify(signature: tampered, message: message))
        #expect(!key.publicKey.verify(signature: signature.dropLast(), message: message))
        #expect(!TestRSAKeys.b.publicKey.verify(signature: signature, message: message))
    }

    @Test func signatureMatchesTheOpenSSLCLI() throws {
        // PKCS#1 v1.5 is deterministic, so an independent implementation must produce identical bytes.
        try TestDirectories.withTemporary { directory in
            let keyFile = directory.appendingPathComponent("key.pem")
            let messageFile = directory.appendingPathComponent("message")
            let signatureFile = directory.appendingPathComponent("signature")
            try TestRSAKeys.a.pemPKCS8().write(to: keyFile, atomically: true, encoding: .utf8)
            let message = Data("independent check".utf8)
            try message.write(to: messageFile)
            _ = try CommandLineTool.openssl([
                "dgst", "-sha256", "-sign", keyFile.path, "-out", signatureFile.path, messageFile.path,
            ])
            let expected = try [UInt8](Data(contentsOf: signatureFile))
            #expect(try TestRSAKeys.a.sign(message) == expected)
        }
    }

    @Test func publicKeyFromComponentsVerifies() throws {
        let key = TestRSAKeys.a
        let rebuilt = try RSAPublicKey(modulus: [0, 0] + key.publicKey.modulus, exponent: key.publicKey.exponent)
        #expect(rebuilt.modulus == key.publicKey.modulus)
        let message = Array("components".utf8)
        #expect(rebuilt.verify(signature: try key.sign(message), message: message))
    }

    @Test func publicKeyRefusesSmallModulusAndBadExponent() throws {
        let modulus = TestRSAKeys.a.publicKey.modulus
        #expect(throws: JOSEError.invalidKey) { try RSAPublicKey(modulus: Array(modulus.prefix(128)), exponent: [1, 0, 1]) }
        #expect(throws: JOSEError.invalidKey) { try RSAPublicKey(modulus: [], exponent: [1, 0, 1]) }
        #expect(throws: JOSEError.invalidKey) { try RSAPublicKey(modulus: modulus, exponent: []) }
        #expect(throws: JOSEError.invalidKey) { try RSAPublicKey(modulus: modulus, exponent: [1]) }
        #expect(throws: JOSEError.invalidKey) { try RSAPublicKey(modulus: modulus, exponent: [1, 0, 0]) }
    }

    @Test func sha256MatchesTheFIPSVector() {
        // Known-answer vector from FIPS 180-2 Appendix B.1 ("abc").
        let hex = JOSEDigest.sha256(Array("abc".utf8)).map { String(format: "%02x", $0) }.joined()
        #expect(hex == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func parallelSigningProducesValidSignatures() async throws {
        let key = TestRSAKeys.a
        let results = try await withThrowingTaskGroup(of: [(String, [UInt8])].self) { group in
            for task in 0..<8 {
                group.addTask {
                    var produced: [(String, [UInt8])] = []
                    for round in 0..<8 {
                        let message = "task \(task) round \(round)"
                        produced.append((message, try key.sign(Array(message.utf8))))
                    }
                    return produced
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(results.count == 64)
        for (message, signature) in results {
            #expect(key.publicKey.verify(signature: signature, message: Array(message.utf8)))
        }
    }

    /// RSASSA-PKCS1-v1_5 is deterministic, so one message signed at once on many tasks is one signature.
    @Test("every signing context signs with the same key")
    func contextsShareTheKey() async throws {
        let key = TestRSAKeys.a
        let message = Array("the same claims".utf8)
        let signatures = try await withThrowingTaskGroup(of: [UInt8].self) { group in
            for _ in 0..<16 { group.addTask { try key.sign(message) } }
            return try await group.reduce(into: Set<[UInt8]>()) { $0.insert($1) }
        }
        #expect(signatures.count == 1)
        #expect(signatures.first.map { key.publicKey.verify(signature: $0, message: message) } == true)
    }
}
