// Names that C allows and C++ (the generated CUDA) takes as keywords: a
// parameter, a local and a helper's parameter.
// expect: 11:44: error: 'new' is a keyword of C++, the language of the generated CUDA: rename it
// expect: 8:26: error: 'class' is a keyword of C++, the language of the generated CUDA: rename it
// expect: 15:15: error: 'this' is a keyword of C++, the language of the generated CUDA: rename it
#include <tilepp/tile.h>

static float shift(float class) { return class + 1.0f; }

#pragma tile kernel
void renew(int n, const float *old, float *new)
{
#pragma tile parallel
    for (int i = 0; i < n; i++) {
        float this = old[i];
        new[i] = shift(this);
    }
}
