// libFuzzer target: the entry points libFuzzer calls, around AppleNotificationEventHarness (Fuzz/Harnesses), which
// holds what is fuzzed and checked; `swift test` replays Fuzz/corpus/AppleNotificationEvent through the same harness.
// Built by scripts/fuzz.
import FuzzHarnesses
import LibFuzzer

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAppleNotificationEvent(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    AppleNotificationEventHarness.run(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

/// The executable's `main` (SwiftPM's name for it): libFuzzer's driver.
@_cdecl("FuzzAppleNotificationEvent_main")
func fuzzAppleNotificationEventMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    issuer_fuzz_main(argc, argv)
}
