// A space of 2048 points: too many translations and kernels to compile.
// expect: 8:99: error: the tune space has more than 1024 points (each is a translation and a kernel to compile); narrow it
#include <tilepp/tile.h>

enum { A = 1, B = 1, C = 1, D = 1, E = 1, F = 1, G = 1, H = 1, I = 1, J = 1, K = 1 };

#pragma tile kernel
#pragma tile tune A(1, 2) B(1, 2) C(1, 2) D(1, 2) E(1, 2) F(1, 2) G(1, 2) H(1, 2) I(1, 2) J(1, 2) K(1, 2)
void f(int n, float x[n])
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        x[i] = A + B + C + D + E + F + G + H + I + J + K;
}
