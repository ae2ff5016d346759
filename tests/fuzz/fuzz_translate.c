/* fuzz_translate.c — libFuzzer harness for the whole translation: parse
 * (libclang and the pragma parser), IR, checks, lowering and emission of
 * the .cu and the header, on an annotated C file given as bytes.
 *
 * Each input is translated for both code paths with -fsyntax-only (every
 * stage runs and the output text is made; nothing is written). The
 * translation must end with 0 (translated) or 1 (refused with diagnostics):
 * a crash, an out-of-bounds access, undefined behaviour or a leak in
 * tilepp's own code is a finding. Diagnostics are discarded. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "driver.h"
#include "ir.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *sink;
    if (!sink)
        sink = fopen("/dev/null", "w");
    diag_set_stream(sink);

    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0'; /* libclang takes the text up to here */

    const char *no_args[1] = {NULL};
    Options opt = {
        .input = "fuzz.c",
        .output = "fuzz.tile.cu",
        .syntax_only = true,
        .emit = EMIT_CUDA,
        .archs = ARCH_SM80 | ARCH_SM90A,
        .clang_args = no_args,
        .nclang_args = 0,
        .include_dir = TILEPP_FUZZ_INCLUDE_DIR,
        .unsaved_text = text,
    };
    int status = tilepp_translate(&opt);
    if (status != 0 && status != 1)
        abort();
    free(text);
    diag_reset();
    arena_free_all();
    return 0;
}
