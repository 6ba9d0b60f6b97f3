// libFuzzer target: an `application/json` OAuth request body. Built by scripts/fuzz against
// IssuerCore.
import Foundation
import IssuerCore
import LibFuzzer

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSONBody(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let parsed = try? OAuthRequestBody.parse(bytes, json: true) else { return 0 }
    // Writing the parameters back as a JSON object of strings and parsing it gives the same.
    var object: [String: Any] = parsed.values
    for (name, members) in parsed.objects { object[name] = members }
    for name in parsed.malformedObjects { object[name] = ["member": 1] }
    for name in parsed.arrays { object[name] = ["element"] }
    guard let json = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else {
        preconditionFailure("parsed parameters cannot be written back: \(parsed)")
    }
    let again = try? OAuthRequestBody.parse(Array(json), json: true)
    precondition(again == parsed, "round trip changed \(parsed) into \(String(describing: again))")
    return 0
}

/// The executable's `main` (SwiftPM's name for it): libFuzzer's driver.
@_cdecl("FuzzJSONBody_main")
func fuzzJSONBodyMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    issuer_fuzz_main(argc, argv)
}
