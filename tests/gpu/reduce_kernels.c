/* reduce_kernels.c — parallel loops inside grid blocks and reductions, as
 * users write them. Each kernel is plain C; its CPU run is the reference
 * reduce_test.c compares the GPU with. */
#include <math.h>
#include <tilepp/tile.h>

enum { CHUNK = 1024, ROW_CACHE = 2048 };

/* Per row: the minimum, the maximum, and the sum plus an offset that takes
 * part once (the variable's value before the loop), in one loop with three
 * reductions; the three stores run once per row. */
#pragma tile kernel threads(128)
void row_stats(int rows, int cols, float offset, const float x[rows][cols], float lo[rows], float hi[rows],
               float total[rows])
{
#pragma tile grid
    for (int r = 0; r < rows; r++) {
        float mn = INFINITY, mx = -INFINITY;
        float s = offset;
#pragma tile parallel reduce(min : mn) reduce(max : mx) reduce(+ : s)
        for (int c = 0; c < cols; c++) {
            float v = x[r][c];
            mn = v < mn ? v : mn;
            mx = tile_max(mx, v);
            s += v;
        }
        lo[r] = mn;
        hi[r] = mx;
        total[r] = s;
    }
}

/* Softmax over a long row in chunks: a running maximum and a running sum,
 * rescaled as each chunk's maximum arrives (a sequential loop of the block
 * around two parallel loops), then one pass that writes. */
#pragma tile kernel threads(256)
void online_softmax(int rows, int cols, const float x[rows][cols], float y[rows][cols])
{
#pragma tile grid
    for (int r = 0; r < rows; r++) {
        float m = -INFINITY, s = 0.0f;
        for (int c0 = 0; c0 < cols; c0 += CHUNK) {
            int end = tile_min(c0 + CHUNK, cols);
            float mc = -INFINITY;
#pragma tile parallel reduce(max : mc)
            for (int c = c0; c < end; c++)
                mc = fmaxf(mc, x[r][c]);
            float mn = fmaxf(m, mc);
            float shift = mn == -INFINITY ? 0.0f : mn; /* a chunk of -inf so far: nothing to rescale */
            float sc = 0.0f;
#pragma tile parallel vector(2) reduce(+ : sc)
            for (int c = c0; c < end; c++)
                sc += expf(x[r][c] - shift);
            s = s * expf(m - shift) + sc;
            m = mn;
        }
#pragma tile parallel vector(4)
        for (int c = 0; c < cols; c++)
            y[r][c] = expf(x[r][c] - m) / s;
    }
}

/* A row kept in shared memory between loops: loaded once, centred by its
 * mean, scaled by its largest magnitude, written. */
#pragma tile kernel threads(256)
void shared_row(int rows, int cols, const half x[rows][cols], float y[rows][cols])
{
#pragma tile grid
    for (int r = 0; r < rows; r++) {
#pragma tile shared
        float row[ROW_CACHE];
        int n = tile_min(cols, ROW_CACHE);
        float sum = 0.0f;
#pragma tile parallel reduce(+ : sum)
        for (int c = 0; c < n; c++) {
            row[c] = x[r][c];
            sum += row[c];
        }
        float mean = sum / n;
        float peak = 0.0f;
#pragma tile parallel reduce(max : peak)
        for (int c = 0; c < n; c++) {
            row[c] = row[c] - mean;
            peak = fmaxf(peak, fabsf(row[c]));
        }
        float scale = peak > 0.0f ? 1.0f / peak : 1.0f;
#pragma tile parallel
        for (int c = 0; c < cols; c++)
            y[r][c] = c < n ? row[n - 1 - c] * scale : 0.0f;
    }
}

/* A block that writes global memory, then reads back what other threads
 * wrote: a scalar read of the first element, and a reversed pass. */
#pragma tile kernel threads(128)
void write_then_read(int rows, int cols, const float x[rows][cols], float t[rows][cols], float y[rows][cols])
{
#pragma tile grid
    for (int r = 0; r < rows; r++) {
#pragma tile parallel vector(4)
        for (int c = 0; c < cols; c++)
            t[r][c] = 2.0f * x[r][c] + 1.0f;
        float first = t[r][0];
#pragma tile parallel
        for (int c = 0; c < cols; c++)
            y[r][c] = t[r][cols - 1 - c] - first;
    }
}

/* A 2-D parallel nest over a slice per block: each batch's matrix divided
 * by its sum of squares. */
#pragma tile kernel threads(256)
void slice_normalize(int batches, int m, int n, const float x[batches][m][n], float y[batches][m][n])
{
#pragma tile grid
    for (int b = 0; b < batches; b++) {
        float ss = 0.0f;
#pragma tile parallel vector(4) reduce(+ : ss)
        for (int i = 0; i < m; i++)
            for (int j = 0; j < n; j++)
                ss = ss + x[b][i][j] * x[b][i][j];
        float inv = 1.0f / sqrtf(ss + 1e-12f);
#pragma tile parallel vector(4)
        for (int i = 0; i < m; i++)
            for (int j = 0; j < n; j++)
                y[b][i][j] = x[b][i][j] * inv;
    }
}

/* Reductions over a whole vector at the top level of a kernel: a count, a
 * maximum that starts from a floor, a logical and, a bitwise or, and the
 * same sum reduced twice (the second loop starts from the first's result);
 * a last loop writes them out. */
#pragma tile kernel threads(256)
void vector_facts(int n, float floor_value, const float *x, float facts[4], float sums[2])
{
    int positives = 0;
    float peak = floor_value;
    int all_finite = 1;
    unsigned bits = 0u;
    float s = 0.0f;
#pragma tile parallel reduce(+ : positives, s) reduce(max : peak) reduce(&& : all_finite) reduce(| : bits)
    for (int i = 0; i < n; i++) {
        if (x[i] > 0.0f)
            positives++;
        peak = fmaxf(peak, x[i]);
        all_finite = isfinite(x[i]) && all_finite;
        bits |= 1u << (i % 32);
        s += x[i];
    }
#pragma tile parallel reduce(+ : s)
    for (int i = 0; i < n; i += 2)
        s += 2.0f * x[i];
    float mean = n > 0 ? s / n : 0.0f;
#pragma tile parallel
    for (int i = 0; i < 4; i++)
        facts[i] = i == 0 ? (float)positives : i == 1 ? peak : i == 2 ? (float)all_finite : (float)bits;
#pragma tile parallel
    for (int i = 0; i < 2; i++)
        sums[i] = i == 0 ? s : mean;
}

/* A reduction over the grid feeding a GEMM grid: C = (A B) / max|A|, the
 * maximum reduced first, the division a parallel loop of the block after
 * the tile store (a barrier between them: the loop reads what the store
 * wrote on other threads). */
#pragma tile kernel threads(256)
void scaled_gemm(int M, int N, int K, const half A[M][K], const half B[K][N], float C[M][N])
{
    float amax = 0.0f;
#pragma tile parallel reduce(max : amax)
    for (int i = 0; i < M * K; i++)
        amax = fmaxf(amax, fabsf(A[i / K][i % K]));
    float inv = 1.0f / amax;
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 128); by++)
        for (int bx = 0; bx < tile_cdiv(N, 128); bx++) {
#pragma tile shared
            half As[128][64], Bs[64][128];
#pragma tile fragment
            float Cf[128][128];
            tile_clear(Cf);
#pragma tile pipelined stages(3)
            for (int k = 0; k < tile_cdiv(K, 64); k++) {
                tile_load(As, A, by * 128, k * 64, M, K);
                tile_load(Bs, B, k * 64, bx * 128, K, N);
                tile_gemm(As, Bs, Cf);
            }
            tile_store(C, Cf, by * 128, bx * 128, M, N);
#pragma tile parallel
            for (int i = 0; i < 128; i++)
                for (int j = 0; j < 128; j++)
                    if (by * 128 + i < M && bx * 128 + j < N)
                        C[by * 128 + i][bx * 128 + j] *= inv;
        }
}

/* RMSNorm on half rows with a float weight, as LLM code writes it: a sum
 * of squares, the row's inverse RMS stored once, then the scaled row. A
 * block of 128 threads: the launcher runs a row on one warp, two or four
 * (a named barrier each) or the whole block, by the row's length. */
#pragma tile kernel threads(128)
void rmsnorm_f16(int rows, int cols, const half x[rows][cols], const float weight[cols], half y[rows][cols],
                 float inv_rms[rows])
{
#pragma tile grid
    for (int r = 0; r < rows; r++) {
        float ss = 0.0f;
#pragma tile parallel vector(8) reduce(+ : ss)
        for (int c = 0; c < cols; c++)
            ss += (float)x[r][c] * (float)x[r][c];
        float inv = 1.0f / sqrtf(ss / cols + 1e-6f);
        inv_rms[r] = inv;
#pragma tile parallel vector(8)
        for (int c = 0; c < cols; c++)
            y[r][c] = (half)((float)x[r][c] * inv * weight[c]);
    }
}

/* Fused GEMM epilogues in registers, as users write them: a parallel loop
 * over the accumulator fragment's elements, reading global memory at tile
 * coordinates under the user's own bounds test. C = relu(A B + bias). */
#pragma tile kernel threads(128)
void gemm_bias_relu(int M, int N, int K, const half A[M][K], const half B[K][N], const float bias[N], float C[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 64); by++)
        for (int bx = 0; bx < tile_cdiv(N, 64); bx++) {
#pragma tile shared
            half As[64][32], Bs[32][64];
#pragma tile fragment
            float Cf[64][64];
            tile_clear(Cf);
#pragma tile pipelined stages(3)
            for (int k = 0; k < tile_cdiv(K, 32); k++) {
                tile_load(As, A, by * 64, k * 32, M, K);
                tile_load(Bs, B, k * 32, bx * 64, K, N);
                tile_gemm(As, Bs, Cf);
            }
#pragma tile parallel
            for (int i = 0; i < 64; i++)
                for (int j = 0; j < 64; j++) {
                    float v = Cf[i][j] + (bx * 64 + j < N ? bias[bx * 64 + j] : 0.0f);
                    Cf[i][j] = v > 0.0f ? v : 0.0f;
                }
            tile_store(C, Cf, by * 64, bx * 64, M, N);
        }
}

/* D = alpha (A B) + R, a residual read element by element, and a second
 * fragment of the same shape that keeps alpha (A B) before the residual
 * (stored too): two fragments that line up element by element. */
#pragma tile kernel threads(256)
void gemm_residual(int M, int N, int K, float alpha, const half A[M][K], const half B[K][N], const float R[M][N],
                   float D[M][N], float S[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 128); by++)
        for (int bx = 0; bx < tile_cdiv(N, 64); bx++) {
#pragma tile shared
            half As[128][32], Bs[32][64];
#pragma tile fragment
            float Acc[128][64], Scaled[128][64];
            tile_clear(Acc);
#pragma tile pipelined stages(2)
            for (int k = 0; k < tile_cdiv(K, 32); k++) {
                tile_load(As, A, by * 128, k * 32, M, K);
                tile_load(Bs, B, k * 32, bx * 64, K, N);
                tile_gemm(As, Bs, Acc);
            }
#pragma tile parallel
            for (int i = 0; i < 128; i++)
                for (int j = 0; j < 64; j++) {
                    int r = by * 128 + i, c = bx * 64 + j;
                    Scaled[i][j] = alpha * Acc[i][j];
                    if (r < M && c < N)
                        Acc[i][j] = Scaled[i][j] + R[r][c];
                }
            tile_store(D, Acc, by * 128, bx * 64, M, N);
            tile_store(S, Scaled, by * 128, bx * 64, M, N);
        }
}

/* A half fragment written element by element: each write rounds to half,
 * as C's assignment does (the registers hold floats), so the GPU matches
 * the CPU run bit for bit. */
#pragma tile kernel threads(128)
void half_fragment_scale(int M, int N, float s, const half X[M][N], half Y[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 64); by++)
        for (int bx = 0; bx < tile_cdiv(N, 32); bx++) {
#pragma tile fragment
            half P[64][32];
            tile_load(P, X, by * 64, bx * 32, M, N);
#pragma tile parallel
            for (int i = 0; i < 64; i++)
                for (int j = 0; j < 32; j++) {
                    P[i][j] = P[i][j] * s;
                    P[i][j] += 0.001f * (float)(i - j);
                }
            tile_store(Y, P, by * 64, bx * 32, M, N);
        }
}

/* 1-D half fragments written every way a block writes them: a row
 * reduction combining with old values (clear 0), a column reduction, loops
 * over the rows and over the columns. Each write rounds to half, as C's
 * does; the stores are float, so a value the GPU kept unrounded in its
 * float registers shows. With inputs in multiples of 1/8 the sums are exact
 * in float in any order, and the GPU matches the CPU run bit for bit. */
#pragma tile kernel threads(128)
void half_slices(int M, int N, const float X[M][N], float rsum[M], float rscaled[M], float csum[tile_cdiv(M, 16)][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 16); by++) {
#pragma tile fragment
        float T[16][256];
#pragma tile fragment
        half s[16], h[16], c[256];
        tile_load(T, X, by * 16, 0, M, N);
        tile_fill(s, 0.1f);
        tile_reduce_sum(T, s, 1, 0);
        tile_reduce_sum(T, c, 0, 1);
        tile_reduce_max(T, h, 1, 1);
#pragma tile parallel
        for (int i = 0; i < 16; i++) { /* two statements: nothing to contract into an FMA */
            h[i] = h[i] * 0.3f;
            h[i] += (float)s[i];
        }
#pragma tile parallel
        for (int j = 0; j < 256; j++)
            c[j] = c[j] * 3.0f;
#pragma tile parallel
        for (int i = 0; i < 16; i++)
            h[i]++;
        tile_store(rsum, s, by * 16, M);
        tile_store(rscaled, h, by * 16, M);
        tile_store(csum[by], c, 0, N);
    }
}

/* Row softmax in registers, at most 64 columns: the rows in a fragment,
 * their maxima and sums by tile_reduce_*, the rest by loops over the
 * fragment that read m[i] and l[i]. Columns past N count as -inf. */
#pragma tile kernel threads(128)
void fragment_softmax(int M, int N, const float X[M][N], float Y[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 64); by++) {
#pragma tile fragment
        float S[64][64], m[64], l[64];
        tile_load(S, X, by * 64, 0, M, N);
#pragma tile parallel
        for (int i = 0; i < 64; i++)
            for (int j = 0; j < 64; j++)
                if (j >= N)
                    S[i][j] = -INFINITY;
        tile_reduce_max(S, m, 1, 1);
#pragma tile parallel
        for (int i = 0; i < 64; i++)
            for (int j = 0; j < 64; j++)
                S[i][j] = expf(S[i][j] - m[i]);
        tile_reduce_sum(S, l, 1, 1);
#pragma tile parallel
        for (int i = 0; i < 64; i++)
            for (int j = 0; j < 64; j++)
                S[i][j] = S[i][j] / l[i];
        tile_store(Y, S, by * 64, 0, M, N);
    }
}

/* Rows of a wide half tile scaled by their largest magnitude and shifted by
 * their mean, in a block of more warps than the tile has rows: the strips
 * layout puts two warps side by side over each row, and the row reductions
 * combine across them through shared memory. */
#pragma tile kernel threads(1024)
void wide_rows(int M, int N, const half X[M][N], half Y[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 16); by++) {
#pragma tile fragment
        float T[16][1024], a[16], s[16];
        tile_load(T, X, by * 16, 0, M, N);
        tile_reduce_absmax(T, a, 1, 1);
        tile_reduce_sum(T, s, 1, 1);
#pragma tile parallel
        for (int i = 0; i < 16; i++)
            for (int j = 0; j < 1024; j++)
                T[i][j] = (a[i] > 0.0f ? T[i][j] / a[i] : 0.0f) - s[i] * (1.0f / 1024);
        tile_store(Y, T, by * 16, 0, M, N);
    }
}

/* Per row: x / max(floor, max |x|) - min x, with a reduction that combines
 * with the values before it (clear = 0) and one that starts afresh. */
#pragma tile kernel threads(128)
void row_scale_shift(int M, int N, float floor_value, const float X[M][N], float Y[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 128); by++)
        for (int bx = 0; bx < tile_cdiv(N, 32); bx++) {
#pragma tile fragment
            float T[128][32], a[128], lo[128];
            tile_load(T, X, by * 128, bx * 32, M, N);
            tile_fill(a, floor_value);
            tile_reduce_absmax(T, a, 1, 0);
            tile_reduce_min(T, lo, 1, 1);
#pragma tile parallel
            for (int i = 0; i < 128; i++)
                for (int j = 0; j < 32; j++)
                    T[i][j] = T[i][j] / a[i] - lo[i];
            tile_store(Y, T, by * 128, bx * 32, M, N);
        }
}

/* A GEMM whose epilogue is a row softmax over the output tile (N at most
 * 64, one tile across): the product stays in registers until the store. */
#pragma tile kernel threads(128)
void gemm_softmax_64(int M, int N, int K, const half A[M][K], const half B[K][N], float C[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 64); by++) {
#pragma tile shared
        half As[64][32], Bs[32][64];
#pragma tile fragment
        float S[64][64], m[64], l[64];
        tile_clear(S);
#pragma tile pipelined stages(3)
        for (int k = 0; k < tile_cdiv(K, 32); k++) {
            tile_load(As, A, by * 64, k * 32, M, K);
            tile_load(Bs, B, k * 32, 0, K, N);
            tile_gemm(As, Bs, S);
        }
#pragma tile parallel
        for (int i = 0; i < 64; i++)
            for (int j = 0; j < 64; j++)
                if (j >= N)
                    S[i][j] = -INFINITY;
        tile_reduce_max(S, m, 1, 1);
#pragma tile parallel
        for (int i = 0; i < 64; i++)
            for (int j = 0; j < 64; j++)
                S[i][j] = expf(S[i][j] - m[i]);
        tile_reduce_sum(S, l, 1, 1);
#pragma tile parallel
        for (int i = 0; i < 64; i++)
            for (int j = 0; j < 64; j++)
                S[i][j] = S[i][j] / l[i];
        tile_store(C, S, by * 64, 0, M, N);
    }
}

/* Row statistics kept and stored from registers: the maximum of each row
 * of X (combined with the maximum of an earlier block of columns, clear =
 * 0), its shifted copy computed by a loop over the rows, both stored. */
#pragma tile kernel threads(128)
void row_max_store(int M, int N, float shift, const float X[M][N], float mx[M], float shifted[M])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 64); by++) {
#pragma tile fragment
        float T[64][64], m[64], s[64];
        tile_load(T, X, by * 64, 0, M, N);
        tile_reduce_max(T, m, 1, 1);
        tile_load(T, X, by * 64, 64, M, N);
        tile_reduce_max(T, m, 1, 0);
        tile_copy(s, m);
#pragma tile parallel
        for (int i = 0; i < 64; i++)
            s[i] = s[i] * 0.5f + shift;
        tile_store(mx, m, by * 64, M);
        tile_store(shifted, s, by * 64, M);
    }
}

/* Two chained products, the second from registers: C = bf16(A B) D^T,
 * with D stored as [N2][N1] (so the second product reads it K-major). */
#pragma tile kernel threads(128)
void chain_gemm_bf16(int M, int K, int N1, int N2, const bfloat16 A[M][K], const bfloat16 B[K][N1],
                     const bfloat16 D[N2][N1], float C[M][N2])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 64); by++)
        for (int bx = 0; bx < tile_cdiv(N2, 64); bx++) {
#pragma tile shared
            bfloat16 As[64][32], Bs[32][64], Ds[64][64];
#pragma tile fragment
            float S[64][64], Cf[64][64];
#pragma tile fragment
            bfloat16 P[64][64];
            tile_clear(S);
#pragma tile pipelined stages(2)
            for (int k = 0; k < tile_cdiv(K, 32); k++) {
                tile_load(As, A, by * 64, k * 32, M, K);
                tile_load(Bs, B, k * 32, 0, K, N1);
                tile_gemm(As, Bs, S);
            }
            tile_copy(P, S);
            tile_clear(Cf);
            tile_load(Ds, D, bx * 64, 0, N2, N1);
            tile_gemm_nt(P, Ds, Cf);
            tile_store(C, Cf, by * 64, bx * 64, M, N2);
        }
}

/* A fused two-layer perceptron, Y = leaky_relu(X W1 + b1) W2, its hidden
 * layer in tiles of 64 units that never leave the block: each step the
 * tile's activations from X's rows (in shared memory for the whole loop)
 * and 64 columns of W1, the bias and activation in registers, then their
 * product with 64 rows of W2 added to Y's accumulator. Two products in one
 * pipelined loop, the second from registers, no softmax between them. A
 * ragged last hidden tile reads zeros past W1's columns and W2's rows (the
 * loads' padding), so its units add nothing; the bias is the user's own
 * bounds test. */
enum { MLP_IN = 64, MLP_OUT = 128, MLP_UNITS = 64 };
#pragma tile kernel threads(256)
void fused_mlp(int M, int hidden, const half X[M][MLP_IN], const half W1[MLP_IN][hidden], const float b1[hidden],
               const half W2[hidden][MLP_OUT], float Y[M][MLP_OUT])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 128); by++) {
#pragma tile shared
        half Xs[128][MLP_IN], W1s[MLP_IN][MLP_UNITS], W2s[MLP_UNITS][MLP_OUT];
#pragma tile fragment
        float H[128][MLP_UNITS], Yf[128][MLP_OUT];
#pragma tile fragment
        half Hh[128][MLP_UNITS];
        tile_load(Xs, X, by * 128, 0, M, MLP_IN);
        tile_clear(Yf);
#pragma tile pipelined stages(3)
        for (int u = 0; u < tile_cdiv(hidden, MLP_UNITS); u++) {
            tile_load(W1s, W1, 0, u * MLP_UNITS, MLP_IN, hidden);
            tile_load(W2s, W2, u * MLP_UNITS, 0, hidden, MLP_OUT);
            tile_clear(H);
            tile_gemm(Xs, W1s, H);
#pragma tile parallel
            for (int i = 0; i < 128; i++)
                for (int j = 0; j < MLP_UNITS; j++) {
                    const int unit = u * MLP_UNITS + j;
                    const float v = H[i][j] + (unit < hidden ? b1[unit] : 0.0f);
                    H[i][j] = v > 0.0f ? v : 0.125f * v;
                }
            tile_copy(Hh, H);
            tile_gemm(Hh, W2s, Yf);
        }
        tile_store(Y, Yf, by * 128, 0, M, MLP_OUT);
    }
}

/* Attention without a softmax, its past decayed: each key tile's scores,
 * relu(Q K^T) / 8, weigh V, and the sum so far is scaled by `decay`
 * before the tile adds to it (FlashAttention's running rescale, with a
 * constant factor): O = sum_t decay^(T-1-t) relu(Q K_t^T / 8) V_t over the
 * T key tiles. The rescale reads neither S nor the loop's variable, so on
 * Hopper it runs under the next tile's Q K^T. */
#pragma tile kernel threads(256)
void decayed_attention(int n, float decay, const half Q[n][64], const half K[n][64], const half V[n][64],
                       float O[n][64])
{
#pragma tile grid
    for (int qb = 0; qb < tile_cdiv(n, 128); qb++) {
#pragma tile shared
        half Qs[128][64], Ks[64][64], Vs[64][64];
#pragma tile fragment
        float S[128][64], Acc[128][64];
#pragma tile fragment
        half P[128][64];
        tile_load(Qs, Q, qb * 128, 0, n, 64);
        tile_clear(Acc);
#pragma tile pipelined stages(3)
        for (int kb = 0; kb < tile_cdiv(n, 64); kb++) {
            tile_load(Ks, K, kb * 64, 0, n, 64);
            tile_load(Vs, V, kb * 64, 0, n, 64);
            tile_clear(S);
            tile_gemm_nt(Qs, Ks, S);
#pragma tile parallel
            for (int i = 0; i < 128; i++)
                for (int j = 0; j < 64; j++)
                    S[i][j] = S[i][j] > 0.0f ? S[i][j] * 0.125f : 0.0f;
#pragma tile parallel
            for (int i = 0; i < 128; i++)
                for (int j = 0; j < 64; j++)
                    Acc[i][j] *= decay;
            tile_copy(P, S);
            tile_gemm(P, Vs, Acc);
        }
        tile_store(O, Acc, qb * 128, 0, n, 64);
    }
}

/* Reductions of shared tiles: column statistics of X accumulated over its
 * row tiles (clear = 0), into a 1-D shared tile and a 1-D fragment. One
 * thread a column, in row order: the CPU's order, so the same bits. */
#pragma tile kernel threads(128)
void column_stats(int M, int N, const half X[M][N], float col_absmax[N], float col_min[N])
{
#pragma tile grid
    for (int bx = 0; bx < tile_cdiv(N, 64); bx++) {
#pragma tile shared
        half T[64][64];
#pragma tile shared
        float amax[64];
#pragma tile fragment
        float cmin[64];
        tile_clear(amax);
        tile_fill(cmin, INFINITY);
#pragma tile pipelined stages(2)
        for (int rb = 0; rb < tile_cdiv(M, 64); rb++) {
            tile_load(T, X, rb * 64, bx * 64, M, N);
            tile_reduce_absmax(T, amax, 0, 0);
            tile_reduce_min(T, cmin, 0, 0);
        }
        tile_store(col_absmax, amax, bx * 64, N);
        tile_store(col_min, cmin, bx * 64, N);
    }
}

/* Row sums of a shared tile into a half 1-D fragment (rounded once, at the
 * end of each call), accumulated over the column tiles. */
#pragma tile kernel threads(64)
void row_sums_shared(int M, int N, const bfloat16 X[M][N], half sums[M])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 32); by++) {
#pragma tile shared
        bfloat16 T[32][64];
#pragma tile fragment
        half s[32];
        tile_clear(s);
#pragma tile pipelined stages(3)
        for (int cb = 0; cb < tile_cdiv(N, 64); cb++) {
            tile_load(T, X, by * 32, cb * 64, M, N);
            tile_reduce_sum(T, s, 1, 0);
        }
        tile_store(sums, s, by * 32, M);
    }
}

/* Column reductions of fragments (dim 0). A GEMM epilogue that scales each
 * column of its tile by the inverse of the column's absmax (the scaling of
 * a per-column quantization), writing each row block's absmax: 128 x 128
 * tiles, which the sm_90a variant runs ping-pong (one warpgroup a tile,
 * four warps over its rows). */
#pragma tile kernel threads(256)
void gemm_col_scale(int M, int N, int K, const half A[M][K], const half B[K][N], half C[M][N],
                    float amax[tile_cdiv(M, 128)][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 128); by++)
        for (int bx = 0; bx < tile_cdiv(N, 128); bx++) {
#pragma tile shared
            half As[128][32], Bs[32][128];
#pragma tile fragment
            float Cf[128][128];
#pragma tile fragment
            float cmax[128];
            tile_clear(Cf);
#pragma tile pipelined stages(3)
            for (int k = 0; k < tile_cdiv(K, 32); k++) {
                tile_load(As, A, by * 128, k * 32, M, K);
                tile_load(Bs, B, k * 32, bx * 128, K, N);
                tile_gemm(As, Bs, Cf);
            }
            tile_reduce_absmax(Cf, cmax, 0, 1);
            tile_store(amax[by], cmax, bx * 128, N);
#pragma tile parallel
            for (int j = 0; j < 128; j++)
                cmax[j] = cmax[j] > 0.0f ? 1.0f / cmax[j] : 0.0f;
#pragma tile parallel
            for (int i = 0; i < 128; i++)
                for (int j = 0; j < 128; j++)
                    Cf[i][j] = Cf[i][j] * cmax[j];
            tile_store(C, Cf, by * 128, bx * 128, M, N);
        }
}

/* The same reduction where two consumer warpgroups share each 256 x 128
 * tile on sm_90a (their partial column sums meet in shared memory), with
 * the column sums of the tile then subtracted as means; and each row's max
 * of the centred tile, stored by the threads that own the rows (of both
 * warpgroups). */
#pragma tile kernel threads(256)
void gemm_col_center(int M, int N, int K, const half A[M][K], const half B[K][N], float C[M][N],
                     float sums[tile_cdiv(M, 256)][N], float row_max[tile_cdiv(N, 128)][M])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 256); by++)
        for (int bx = 0; bx < tile_cdiv(N, 128); bx++) {
#pragma tile shared
            half As[256][32], Bs[32][128];
#pragma tile fragment
            float Cf[256][128];
#pragma tile fragment
            float s[128], r[256];
            tile_clear(Cf);
#pragma tile pipelined stages(3)
            for (int k = 0; k < tile_cdiv(K, 32); k++) {
                tile_load(As, A, by * 256, k * 32, M, K);
                tile_load(Bs, B, k * 32, bx * 128, K, N);
                tile_gemm(As, Bs, Cf);
            }
            tile_reduce_sum(Cf, s, 0, 1);
#pragma tile parallel
            for (int i = 0; i < 256; i++)
                for (int j = 0; j < 128; j++)
                    Cf[i][j] -= s[j] * (1.0f / 256.0f);
            tile_reduce_max(Cf, r, 1, 1);
            tile_store(C, Cf, by * 256, bx * 128, M, N);
            tile_store(sums[by], s, bx * 128, N);
            tile_store(row_max[bx], r, by * 256, M);
        }
}

/* gemm_col_center with bfloat16 inputs over 192 x 128 tiles and 384
 * threads: on sm_90a three consumer warpgroups, whose partial column sums
 * meet in shared memory, each holding 64 of the rows the row max reads. */
#pragma tile kernel threads(384)
void gemm_col_center_tall(int M, int N, int K, const bfloat16 A[M][K], const bfloat16 B[K][N], float C[M][N],
                          float sums[tile_cdiv(M, 192)][N], float row_max[tile_cdiv(N, 128)][M])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 192); by++)
        for (int bx = 0; bx < tile_cdiv(N, 128); bx++) {
#pragma tile shared
            bfloat16 As[192][64], Bs[64][128];
#pragma tile fragment
            float Cf[192][128];
#pragma tile fragment
            float s[128], r[192];
            tile_clear(Cf);
#pragma tile pipelined stages(3)
            for (int k = 0; k < tile_cdiv(K, 64); k++) {
                tile_load(As, A, by * 192, k * 64, M, K);
                tile_load(Bs, B, k * 64, bx * 128, K, N);
                tile_gemm(As, Bs, Cf);
            }
            tile_reduce_sum(Cf, s, 0, 1);
#pragma tile parallel
            for (int i = 0; i < 192; i++)
                for (int j = 0; j < 128; j++)
                    Cf[i][j] -= s[j] * (1.0f / 192.0f);
            tile_reduce_max(Cf, r, 1, 1);
            tile_store(C, Cf, by * 192, bx * 128, M, N);
            tile_store(sums[by], s, bx * 128, N);
            tile_store(row_max[bx], r, by * 192, M);
        }
}

/* Column statistics of a fragment in strips, over two row halves of a
 * 64-row block: the first half's reduction clears, the second combines
 * with it (clear = 0); the first half goes out as it is, the second less
 * its column's max. */
#pragma tile kernel threads(128)
void column_stats_frag(int M, int N, const float X[M][N], float Y[M][N], float cmax[tile_cdiv(M, 64)][N],
                       float csum[tile_cdiv(M, 64)][N], float cmin[tile_cdiv(M, 64)][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 64); by++)
        for (int bx = 0; bx < tile_cdiv(N, 128); bx++) {
#pragma tile fragment
            float T[32][128];
#pragma tile fragment
            float mx[128], sm[128], mn[128];
            tile_load(T, X, by * 64, bx * 128, M, N);
            tile_reduce_max(T, mx, 0, 1);
            tile_reduce_sum(T, sm, 0, 1);
            tile_reduce_min(T, mn, 0, 1);
            tile_store(Y, T, by * 64, bx * 128, M, N);
            tile_load(T, X, by * 64 + 32, bx * 128, M, N);
            tile_reduce_max(T, mx, 0, 0);
            tile_reduce_sum(T, sm, 0, 0);
            tile_reduce_min(T, mn, 0, 0);
#pragma tile parallel
            for (int i = 0; i < 32; i++)
                for (int j = 0; j < 128; j++)
                    T[i][j] -= mx[j];
            tile_store(Y, T, by * 64 + 32, bx * 128, M, N);
            tile_store(cmax[by], mx, bx * 128, N);
            tile_store(csum[by], sm, bx * 128, N);
            tile_store(cmin[by], mn, bx * 128, N);
        }
}

/* Fragments reduced into 1-D shared tiles: row maxima of a fragment in
 * strips (clear) and column sums into a half tile that starts at 0.5 and
 * accumulates (clear = 0), each written once by the line's owner. */
#pragma tile kernel threads(128)
void frag_into_shared(int M, int N, const float X[M][N], float rmax[tile_cdiv(N, 128)][M],
                      half csum[tile_cdiv(M, 32)][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 32); by++)
        for (int bx = 0; bx < tile_cdiv(N, 128); bx++) {
#pragma tile fragment
            float T[32][128];
#pragma tile shared
            float rm[32];
#pragma tile shared
            half cs[128];
            tile_load(T, X, by * 32, bx * 128, M, N);
            tile_fill(cs, 0.5f);
            tile_reduce_max(T, rm, 1, 1);
            tile_reduce_sum(T, cs, 0, 0);
            tile_store(rmax[bx], rm, by * 32, M);
            tile_store(csum[by], cs, bx * 128, N);
        }
}

/* The same from a GEMM's accumulator (the sm_80 kernel: shared tiles
 * outside the pipelined loop keep a grid off the sm_90a variant). */
#pragma tile kernel threads(128)
void gemm_into_shared(int M, int N, int K, const half A[M][K], const half B[K][N], float rabs[tile_cdiv(N, 64)][M],
                      float cmin[tile_cdiv(M, 64)][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 64); by++)
        for (int bx = 0; bx < tile_cdiv(N, 64); bx++) {
#pragma tile shared
            half As[64][32], Bs[32][64];
#pragma tile fragment
            float Cf[64][64];
#pragma tile shared
            float ra[64], cm[64];
            tile_clear(Cf);
#pragma tile pipelined stages(2)
            for (int k = 0; k < tile_cdiv(K, 32); k++) {
                tile_load(As, A, by * 64, k * 32, M, K);
                tile_load(Bs, B, k * 32, bx * 64, K, N);
                tile_gemm(As, Bs, Cf);
            }
            tile_reduce_absmax(Cf, ra, 1, 1);
            tile_reduce_min(Cf, cm, 0, 1);
            tile_store(rabs[bx], ra, by * 64, M);
            tile_store(cmin[by], cm, bx * 64, N);
        }
}

/* Uniform ifs around parallel loops (each thread of a block takes the same
 * branch). Inside the pipelined loop, an if/else on the loop's index: the
 * products of odd K chunks are subtracted, C = sum over chunks k of
 * (-1)^k A_k B_k. After it, an if/else on the block's position: the last
 * column of blocks adds the bias under the user's bounds test, the others
 * without one; and, nested in the else, a flag parameter doubles the even
 * rows of blocks. */
#pragma tile kernel threads(128)
void guarded_gemm(int M, int N, int K, int twice, const half A[M][K], const half B[K][N], const float bias[N],
                  float C[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 64); by++)
        for (int bx = 0; bx < tile_cdiv(N, 64); bx++) {
#pragma tile shared
            half As[64][32], Bs[32][64];
#pragma tile fragment
            float Cf[64][64], T[64][64];
            const int ragged = bx * 64 + 64 > N;
            tile_clear(Cf);
#pragma tile pipelined stages(3)
            for (int k = 0; k < tile_cdiv(K, 32); k++) {
                tile_load(As, A, by * 64, k * 32, M, K);
                tile_load(Bs, B, k * 32, bx * 64, K, N);
                tile_clear(T);
                tile_gemm(As, Bs, T);
                if (k % 2 == 1) {
#pragma tile parallel
                    for (int i = 0; i < 64; i++)
                        for (int j = 0; j < 64; j++)
                            Cf[i][j] -= T[i][j];
                } else {
#pragma tile parallel
                    for (int i = 0; i < 64; i++)
                        for (int j = 0; j < 64; j++)
                            Cf[i][j] += T[i][j];
                }
            }
            if (ragged) {
#pragma tile parallel
                for (int i = 0; i < 64; i++)
                    for (int j = 0; j < 64; j++)
                        Cf[i][j] += bx * 64 + j < N ? bias[bx * 64 + j] : 0.0f;
            } else {
#pragma tile parallel
                for (int i = 0; i < 64; i++)
                    for (int j = 0; j < 64; j++)
                        Cf[i][j] += bias[bx * 64 + j];
                if (twice && by % 2 == 0) {
#pragma tile parallel
                    for (int i = 0; i < 64; i++)
                        for (int j = 0; j < 64; j++)
                            Cf[i][j] *= 2.0f;
                }
            }
            tile_store(C, Cf, by * 64, bx * 64, M, N);
        }
}

/* Rows of X from row `split` on negated, then shifted by their maximum:
 * blocks wholly past split negate every element, the block split cuts
 * (an else-if) tests each row, the rest do nothing. */
#pragma tile kernel threads(128)
void guarded_rows(int M, int N, int split, const float X[M][N], float Y[M][N], float mx[M])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 32); by++) {
#pragma tile fragment
        float F[32][64], m[32];
        tile_load(F, X, by * 32, 0, M, N);
        if (by * 32 >= split) {
#pragma tile parallel
            for (int i = 0; i < 32; i++)
                for (int j = 0; j < 64; j++)
                    F[i][j] = -F[i][j];
        } else if (by * 32 + 32 > split) {
#pragma tile parallel
            for (int i = 0; i < 32; i++)
                for (int j = 0; j < 64; j++)
                    if (by * 32 + i >= split)
                        F[i][j] = -F[i][j];
        }
        tile_reduce_max(F, m, 1, 1);
#pragma tile parallel
        for (int i = 0; i < 32; i++)
            for (int j = 0; j < 64; j++)
                F[i][j] -= m[i];
        tile_store(Y, F, by * 32, 0, M, N);
        tile_store(mx, m, by * 32, M);
    }
}

/* Tile operations in plain sequential loops of a block (no pipeline):
 * LayerNorm of long rows walked in chunks of 256 columns, first the row
 * sums of x and x^2 accumulated with clear = 0, then a second walk that
 * normalises and stores each chunk. Columns past the row load as 0, which
 * adds nothing to the sums. */
#pragma tile kernel threads(256)
void chunked_layernorm(int rows, int cols, float eps, const half x[rows][cols], const float g[cols], half y[rows][cols])
{
#pragma tile grid
    for (int rb = 0; rb < tile_cdiv(rows, 16); rb++) {
#pragma tile fragment
        float t[16][256], sq[16][256], s[16], s2[16], mean[16], rstd[16];
        tile_clear(s);
        tile_clear(s2);
        for (int c = 0; c < tile_cdiv(cols, 256); c++) {
            tile_load(t, x, rb * 16, c * 256, rows, cols);
#pragma tile parallel
            for (int i = 0; i < 16; i++)
                for (int j = 0; j < 256; j++)
                    sq[i][j] = t[i][j] * t[i][j];
            tile_reduce_sum(t, s, 1, 0);
            tile_reduce_sum(sq, s2, 1, 0);
        }
#pragma tile parallel
        for (int i = 0; i < 16; i++) {
            mean[i] = s[i] / cols;
            float var = s2[i] / cols - mean[i] * mean[i];
            rstd[i] = 1.0f / sqrtf(var > 0.0f ? var + eps : eps);
        }
        for (int c = 0; c < tile_cdiv(cols, 256); c++) {
            tile_load(t, x, rb * 16, c * 256, rows, cols);
#pragma tile parallel
            for (int i = 0; i < 16; i++)
                for (int j = 0; j < 256; j++) {
                    int col = c * 256 + j;
                    t[i][j] = (t[i][j] - mean[i]) * rstd[i] * (col < cols ? g[col] : 0.0f);
                }
            tile_store(y, t, rb * 16, c * 256, rows, cols);
        }
    }
}

/* Column maxima and sums of a tall matrix, a block per 128 columns walking
 * down the rows in a plain loop: the rows past the matrix masked to -inf
 * for the maximum and to 0 for the sum, dim-0 reductions across the warps
 * stacked over the rows (their shared scratch reused every iteration). */
#pragma tile kernel threads(128)
void column_walk(int rows, int cols, const float x[rows][cols], float cmax[cols], float csum[cols])
{
#pragma tile grid
    for (int bx = 0; bx < tile_cdiv(cols, 128); bx++) {
#pragma tile fragment
        float t[64][128], m[128], s[128];
        tile_fill(m, -INFINITY);
        tile_clear(s);
        for (int r = 0; r < tile_cdiv(rows, 64); r++) {
            tile_load(t, x, r * 64, bx * 128, rows, cols);
#pragma tile parallel
            for (int i = 0; i < 64; i++)
                for (int j = 0; j < 128; j++)
                    if (r * 64 + i >= rows)
                        t[i][j] = -INFINITY;
            tile_reduce_max(t, m, 0, 0);
#pragma tile parallel
            for (int i = 0; i < 64; i++)
                for (int j = 0; j < 128; j++)
                    if (r * 64 + i >= rows)
                        t[i][j] = 0.0f;
            tile_reduce_sum(t, s, 0, 0);
        }
        tile_store(cmax, m, bx * 128, cols);
        tile_store(csum, s, bx * 128, cols);
    }
}

/* A GEMM whose k loop has no pipeline: each step loads both shared tiles
 * (the block waits for the previous step's product first), multiplies, and
 * adds the running product's row sums (clear on the first step only). */
#pragma tile kernel threads(128)
void gemm_plain_loop(int M, int N, int K, const half A[M][K], const half B[K][N], half C[M][N],
                     float sums[tile_cdiv(N, 64)][M])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 64); by++)
        for (int bx = 0; bx < tile_cdiv(N, 64); bx++) {
#pragma tile shared
            half As[64][32], Bs[32][64];
#pragma tile fragment
            float Cf[64][64], rs[64];
            tile_clear(Cf);
            for (int k = 0; k < K; k += 32) {
                tile_load(As, A, by * 64, k, M, K);
                tile_load(Bs, B, k, bx * 64, K, N);
                tile_gemm(As, Bs, Cf);
                tile_reduce_sum(Cf, rs, 1, k == 0);
            }
#pragma tile parallel
            for (int i = 0; i < 64; i++)
                for (int j = 0; j < 64; j++)
                    Cf[i][j] = fmaxf(Cf[i][j], 0.0f);
            tile_store(C, Cf, by * 64, bx * 64, M, N);
            tile_store(sums[bx], rs, by * 64, M);
        }
}

/* Column magnitudes through a shared tile in a plain loop: the running
 * maxima of |x| in a 1-D shared tile, the running sums of |x| in a 1-D
 * fragment (rows past the matrix load as 0: neither changes). */
#pragma tile kernel threads(128)
void column_walk_shared(int rows, int cols, const bfloat16 x[rows][cols], float amax[cols], float asum[cols])
{
#pragma tile grid
    for (int bx = 0; bx < tile_cdiv(cols, 64); bx++) {
#pragma tile shared
        bfloat16 T[64][64];
#pragma tile shared
        float m[64];
#pragma tile fragment
        float s[64];
        tile_clear(m);
        tile_clear(s);
        for (int r = 0; r < rows; r += 64) {
            tile_load(T, x, r, bx * 64, rows, cols);
            tile_reduce_absmax(T, m, 0, 0);
            tile_reduce_abssum(T, s, 0, 0);
        }
        tile_store(amax, m, bx * 64, cols);
        tile_store(asum, s, bx * 64, cols);
    }
}

/* Softmax of long rows in tile form: each block walks its 8 rows in
 * chunks of 512 with a running maximum and sum (loops over the row
 * fragments inside the plain loop), then walks them again to write. */
#pragma tile kernel threads(256)
void softmax_chunks(int rows, int cols, const half x[rows][cols], half y[rows][cols])
{
#pragma tile grid
    for (int rb = 0; rb < tile_cdiv(rows, 8); rb++) {
#pragma tile fragment
        float t[8][512], m[8], s[8], cm[8], cs[8];
        tile_fill(m, -INFINITY);
        tile_clear(s);
        for (int c = 0; c < tile_cdiv(cols, 512); c++) {
            tile_load(t, x, rb * 8, c * 512, rows, cols);
#pragma tile parallel
            for (int i = 0; i < 8; i++)
                for (int j = 0; j < 512; j++)
                    if (c * 512 + j >= cols)
                        t[i][j] = -INFINITY;
            tile_reduce_max(t, cm, 1, 1);
#pragma tile parallel
            for (int i = 0; i < 8; i++) {
                float mm = fmaxf(m[i], cm[i]);
                s[i] = mm == -INFINITY ? 0.0f : s[i] * expf(m[i] - mm);
                cm[i] = mm;
            }
#pragma tile parallel
            for (int i = 0; i < 8; i++)
                for (int j = 0; j < 512; j++)
                    t[i][j] = cm[i] == -INFINITY ? 0.0f : expf(t[i][j] - cm[i]);
            tile_reduce_sum(t, cs, 1, 1);
#pragma tile parallel
            for (int i = 0; i < 8; i++) {
                s[i] += cs[i];
                m[i] = cm[i];
            }
        }
        for (int c = 0; c < tile_cdiv(cols, 512); c++) {
            tile_load(t, x, rb * 8, c * 512, rows, cols);
#pragma tile parallel
            for (int i = 0; i < 8; i++)
                for (int j = 0; j < 512; j++)
                    t[i][j] = s[i] > 0.0f ? expf(t[i][j] - m[i]) / s[i] : 0.0f;
            tile_store(y, t, rb * 8, c * 512, rows, cols);
        }
    }
}
