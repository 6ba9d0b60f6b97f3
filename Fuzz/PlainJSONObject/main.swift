// libFuzzer target: the entry points libFuzzer calls, around PlainJSONObjectHarness (Fuzz/Harnesses), which
// holds what is fuzzed and checked; `swift test` replays Fuzz/corpus/PlainJSONObject through the same harness.
// Built by scripts/fuzz.
import FuzzHarnesses
import LibFuzzer

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPlainJSONObject(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    PlainJSONObjectHarness.run(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

/// The executable's `main` (SwiftPM's name for it): libFuzzer's driver.
@_cdecl("FuzzPlainJSONObject_main")
func fuzzPlainJSONObjectMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    issuer_fuzz_main(argc, argv)
}
