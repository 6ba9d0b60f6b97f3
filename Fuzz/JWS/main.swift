// libFuzzer target: a compact JWS (RFC 7515 §7.1) as a client or Apple would send it. Built by
// scripts/fuzz against JOSE.
import Foundation
import JOSE
import LibFuzzer

/// Generated once; what parses is re-signed with it to reach the checks behind the signature.
let key = try! RSAPrivateKey.generate(bits: 2048)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJWS(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    // Every step of verification that a forged token can reach.
    _ = try? JWS.verify(text, allowedAlgorithms: [.rs256], key: { _ in key.publicKey })
    guard let parsed = try? JWS.parse(text, allowedAlgorithms: [.rs256]) else { return 0 }
    precondition(parsed.header.algorithm == .rs256 && parsed.header.crit == nil, "parse let through \(parsed.header)")
    // Strict base64url: each segment is the one canonical encoding of its bytes.
    let segments = text.split(separator: ".", omittingEmptySubsequences: false)
    precondition(segments.count == 3, "parsed \(segments.count) segments")
    for segment in segments {
        guard let bytes = Base64URL.decode(segment) else { preconditionFailure("parsed an undecodable segment") }
        precondition(Base64URL.encode(bytes) == segment, "segment \(segment) is not canonical")
    }
    // Signing what parsed and verifying it again gives back the same header and payload.
    guard let payload = Base64URL.decode(segments[1]), let signed = try? JWS.sign(payload: payload, header: parsed.header, key: key)
    else { preconditionFailure("a parsed header cannot be signed") }
    do {
        let verified = try JWS.verify(signed, allowedAlgorithms: [.rs256], maxLength: .max, key: { _ in key.publicKey })
        precondition(verified.header == parsed.header && verified.payload == payload, "sign/verify round trip")
    } catch JOSEError.malformed {
        // The payload is not a JSON object: refused after the signature, as RFC 7519 §7.2 says.
    } catch {
        preconditionFailure("re-signed token refused: \(error)")
    }
    return 0
}

/// The executable's `main` (SwiftPM's name for it): libFuzzer's driver.
@_cdecl("FuzzJWS_main")
func fuzzJWSMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    issuer_fuzz_main(argc, argv)
}
