/* A stand-in for a generated offline-tuning entry: prints what it was given
 * and returns 3, so tool_test.cmake can see what tilepp-tune passes on. */
#include <stdio.h>
#include <stdlib.h>

int tile_tune_entry_fake(int argc, const char *const *argv)
{
    const char *cache = getenv("TILEPP_TUNE_CACHE");
    printf("fake: argc=%d\n", argc);
    for (int i = 0; i < argc; i++)
        printf("fake: argv[%d]=%s\n", i, argv[i]);
    printf("fake: argv[argc]=%s\n", argv[argc] ? "set" : "null");
    printf("fake: cache=%s\n", cache ? cache : "(unset)");
    return 3;
}
