// libFuzzer target: `Cache-Control` from a remote party (SPEC §7). Built by scripts/fuzz with
// Sources/IssuerCore/Federation/CacheControl.swift.

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
