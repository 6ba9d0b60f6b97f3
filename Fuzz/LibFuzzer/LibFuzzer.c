#include "LibFuzzer.h"

#include <sanitizer/lsan_interface.h>
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

int issuer_fuzz_main(int argc, char **argv) {
    // One run on the empty input first, out of the leak checker's sight: it initializes the lazy
    // globals (keys, sealers, constants). Swift keeps some of their storage behind pointers with
    // tag bits, which LeakSanitizer cannot follow, so it would report them as leaked the first
    // time a later input made it look. A leak of a real run recurs on the next inputs and is
    // still found.
    __lsan_disable();
    LLVMFuzzerTestOneInput((const uint8_t *)"", 0);
    __lsan_enable();
    return LLVMFuzzerRunDriver(&argc, &argv, LLVMFuzzerTestOneInput);
}
