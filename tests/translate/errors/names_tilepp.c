// A parameter in tilepp's own namespace (tile_), and a function named like
// the launcher tilepp writes for a kernel of the file.
// expect: 8:42: error: 'tile_count': names that start with 'tile_' are tilepp's own (the generated code declares them): rename it
// expect: 15:6: error: 'scale_gpu' is the name of the launcher tilepp writes for kernel 'scale': the two would be one symbol when the file and its launchers are linked together; rename it
#include <tilepp/tile.h>

#pragma tile kernel
void scale(int n, float s, float *x, int tile_count)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        x[i] = x[i] * s + (float)tile_count;
}

void scale_gpu(int n, float s, float *x) { scale(n, s, x, 0); }
