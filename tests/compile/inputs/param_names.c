/* Parameters with plain names the generated code also likes to use: the
 * launcher header must still compile (it declared `float *stream` and
 * `cudaStream_t stream` side by side). */
#include <tilepp/tile.h>

#pragma tile kernel
void fill(int n, float value, float *stream, float *err)
{
#pragma tile parallel vector(4)
    for (int i = 0; i < n; i++) {
        stream[i] = value;
        err[i] = 0.0f;
    }
}
