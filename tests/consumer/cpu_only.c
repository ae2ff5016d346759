/* cpu_only.c — the CPU reference alone, built with tilepp::tile (no GPU). */
#include <stdio.h>
#include <tilepp/tile.h>

void vadd(int n, const float *a, const float *b, float *c);

int main(void)
{
    float a[3] = {1, 2, 3}, b[3] = {4, 5, 6}, c[3];
    vadd(3, a, b, c);
    for (int i = 0; i < 3; i++)
        if (c[i] != a[i] + 2.0f * b[i] + 0.25f) {
            printf("cpu_only: FAILED at %d: %g\n", i, c[i]);
            return 1;
        }
    printf("cpu_only: ok (tile_cdiv(7, 2) = %lld)\n", tile_cdiv(7, 2));
    return 0;
}
