// libFuzzer target: a JWK Set (RFC 7517 §5) as Apple's JWKS endpoint answers it, and single JWKs.
// Built by scripts/fuzz against JOSE.
import Foundation
import JOSE
import LibFuzzer

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJWK(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Data(UnsafeBufferPointer(start: data, count: size))
    if let keys = try? JWKS.rsaVerificationKeys(fromJSON: bytes) {
        for (kid, key) in keys {
            // A usable key survives publication and parsing unchanged.
            guard let again = try? RSAPublicKey(jwk: key.jwk(kid: kid)) else { preconditionFailure("key \(kid) did not round-trip") }
            precondition(again.modulus == key.modulus && again.exponent == key.exponent, "key \(kid) changed")
            precondition(again.jwk(kid: kid) == key.jwk(kid: kid), "JWK of \(kid) changed")
        }
    }
    if let jwk = try? JSONDecoder().decode(JWK.self, from: bytes) {
        guard let encoded = try? JSONEncoder().encode(jwk), let again = try? JSONDecoder().decode(JWK.self, from: encoded)
        else { preconditionFailure("a decoded JWK cannot be encoded") }
        precondition(again == jwk, "JWK round trip")
        _ = try? RSAPublicKey(jwk: jwk)
    }
    _ = try? JSONDecoder().decode(JWKS.self, from: bytes)
    return 0
}

/// The executable's `main` (SwiftPM's name for it): libFuzzer's driver.
@_cdecl("FuzzJWK_main")
func fuzzJWKMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    issuer_fuzz_main(argc, argv)
}
