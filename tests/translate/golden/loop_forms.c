/* Canonical loop forms: a non-zero lower bound, step 2, <=, a descending
 * loop, a bound on the left of the comparison and a step from a parameter. */
#include <tilepp/tile.h>

#pragma tile kernel
void from_three(int n, const float *a, float *b)
{
#pragma tile parallel vector(4)
    for (int i = 3; i < n; i++)
        b[i] = a[i] * 2.0f;
}

#pragma tile kernel
void even_only(int n, const float *a, float *b)
{
#pragma tile parallel
    for (int i = 0; i < n; i += 2)
        b[i] = a[i] + 1.0f;
}

#pragma tile kernel
void inclusive(int last, const float *a, float *b)
{
#pragma tile parallel vector(4)
    for (int i = 0; i <= last; i++)
        b[i] = a[i] - 1.0f;
}

#pragma tile kernel
void descending(int n, const float *a, float *b)
{
#pragma tile parallel
    for (int i = n - 1; i >= 0; i--)
        b[i] = a[i] * a[i];
}

#pragma tile kernel
void bound_on_left(int n, const float *a, float *b)
{
#pragma tile parallel
    for (int i = 0; n > i; ++i)
        b[i] = -a[i];
}

#pragma tile kernel
void strided(int n, int stride, const float *a, float *b)
{
#pragma tile parallel
    for (long i = 0; i < n; i = i + stride)
        b[i] = a[i] * 0.5f;
}

/* vector(4) on a descending loop: its accesses are not contiguous upwards,
 * so each thread runs 4 iterations with scalar accesses (a warning says so). */
#pragma tile kernel
void descending_v4(int n, const float *a, float *b)
{
#pragma tile parallel vector(4)
    for (int i = n - 1; i >= 0; i--)
        b[i] = a[i] + 2.0f;
}
