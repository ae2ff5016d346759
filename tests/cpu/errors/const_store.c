/* expect: discards.*qualifier */
#include <tilepp/tile.h>
void f(int m, int n, const float c[m][n]);
void f(int m, int n, const float c[m][n])
{
    float t[8][8] = {{0}};
    tile_store(c, t, 0, 0, m, n);
}
