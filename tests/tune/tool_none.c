/* A library without a tuned kernel. */
int tile_tune_nothing(void) { return 0; }
