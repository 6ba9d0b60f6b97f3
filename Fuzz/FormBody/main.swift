// libFuzzer target: the entry points libFuzzer calls, around FormBodyHarness (Fuzz/Harnesses), which
// holds what is fuzzed and checked; `swift test` replays Fuzz/corpus/FormBody through the same harness.
// Built by scripts/fuzz.
import FuzzHarnesses
import LibFuzzer

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFormBody(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FormBodyHarness.run(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

/// The executable's `main` (SwiftPM's name for it): libFuzzer's driver.
@_cdecl("FuzzFormBody_main")
func fuzzFormBodyMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    issuer_fuzz_main(argc, argv)
}
