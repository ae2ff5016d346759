// A collapsed 2-D nest where every j writes c[i].
// expect: 11:13: error: every iteration of 'j' writes the same element 'c[i]': the iterations would race (to combine the iterations' values, accumulate into a variable with reduce(op: var) and store it after the loop)
#include <tilepp/tile.h>

#pragma tile kernel
void f(int rows, int cols, const float a[rows][cols], float c[rows])
{
#pragma tile parallel
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++)
            c[i] = a[i][j];
}
