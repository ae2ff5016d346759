__device__ __noinline__ float helper(float *p, int i) { float a[8]; for (int k = 0; k < 8; k++) a[k] = p[i + k]; return a[i & 7]; }
__global__ void uses_helper(float *p, int i) { p[0] = helper(p, i); }
