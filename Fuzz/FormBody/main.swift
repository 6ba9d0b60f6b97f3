// libFuzzer target: an `application/x-www-form-urlencoded` OAuth request body. Built by
// scripts/fuzz against IssuerCore.
import Foundation
import IssuerCore
import LibFuzzer

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFormBody(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let parsed = try? OAuthRequestBody.parse(bytes, json: false) else { return 0 }
    precondition(parsed.objects.isEmpty, "a form has no objects")
    // Encoding every pair again and parsing it gives the same parameters.
    let encoded = parsed.values.sorted { $0.key < $1.key }.map { "\(encode($0.key))=\(encode($0.value))" }
    let again = try? OAuthRequestBody.parse(Array(encoded.joined(separator: "&").utf8), json: false)
    precondition(again == parsed, "round trip changed \(parsed) into \(String(describing: again))")
    return 0
}

/// RFC 3986 unreserved: everything else is percent-encoded.
private let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

private func encode(_ text: String) -> String {
    text.addingPercentEncoding(withAllowedCharacters: unreserved)!
}

/// The executable's `main` (SwiftPM's name for it): libFuzzer's driver.
@_cdecl("FuzzFormBody_main")
func fuzzFormBodyMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    issuer_fuzz_main(argc, argv)
}
