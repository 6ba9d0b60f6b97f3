// libFuzzer target: `Cache-Control` from a remote party. Built by scripts/fuzz against IssuerCore.
import IssuerCore
import LibFuzzer

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCacheControl(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let parsed = CacheControl(text)
    // What parses serializes to something that parses the same.
    let again = CacheControl(parsed.serialized)
    precondition(again == parsed, "round trip changed \(parsed.directives) into \(again.directives)")
    if let lifetime = parsed.freshnessLifetime {
        precondition((0...CacheControl.deltaSecondsCeiling).contains(lifetime), "lifetime \(lifetime)")
    }
    for directive in parsed.directives {
        precondition(!directive.name.isEmpty && directive.name == directive.name.lowercased(), "name \(directive.name)")
    }
    return 0
}

/// The executable's `main` (SwiftPM's name for it): libFuzzer's driver.
@_cdecl("FuzzCacheControl_main")
func fuzzCacheControlMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    issuer_fuzz_main(argc, argv)
}
