/* A second entry in the same library, and a function that is not one. */
int tile_tune_entry_other(int argc, const char *const *argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

int tile_tune_helper(void) { return 1; }
