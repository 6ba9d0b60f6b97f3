// The entry point each harness's `main` hands over to: libFuzzer's driver, run on the harness's
// `LLVMFuzzerTestOneInput`. SwiftPM renames an executable's `main` to `<Target>_main` and aliases
// `main` to it at link time, which overrides the `main` of libFuzzer's runtime; so each harness
// defines `Fuzz<Name>_main` and calls this.
//
// Before the driver starts, the harness runs once on the empty input (see LibFuzzer.c).
#pragma once

int issuer_fuzz_main(int argc, char **argv);
