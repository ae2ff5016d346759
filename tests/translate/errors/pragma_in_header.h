/* A kernel in a header: translate the file that includes it? Refuse it. */
#pragma tile kernel
static void zero(int n, float *x)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        x[i] = 0.0f;
}
