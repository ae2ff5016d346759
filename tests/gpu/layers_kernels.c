/* layers_kernels.c — pieces of a transformer block as a user writes them
 * (not samples, and not written to the translator's cases): a batched
 * nn.Linear with SiLU in bfloat16, its weight stored [N][K]; attention
 * scores with a causal mask and a temperature, softmax written straight to
 * memory from the parallel loop under the user's own bounds test;
 * per-column scales loaded into a 1-D fragment over a GEMM whose A is
 * stored transposed, with the column absmax of the result; a residual and
 * RMSNorm over a GEMM's rows; rows scaled to unit L2 norm; a bfloat16 MLP
 * with the exact GELU between its layers and its input added back.
 * layers_test.c checks each against its CPU run at ragged shapes. On
 * Hopper the linear layer runs ping-pong and the MLP shares its tile
 * between two warpgroups (its second product from registers); the scores
 * and the transposed-A GEMM, with 32-deep stages, keep too few bytes in
 * flight for the launcher to prefer their sm_90a variants (TILEPP_PATH=sm90
 * forces them), and the two row reductions over 64-row tiles have none
 * (the generated file says why): those run the sm_80 kernel. */
#include <math.h>
#include <tilepp/tile.h>

/* A batched linear layer with nn.Linear's weight layout (W[N][K]) and
 * SiLU, bf16 in and out: Y[b] = silu(X[b] W^T + bias). */
#pragma tile kernel threads(256)
void batched_linear_silu(int batch, int M, int N, int K, const bfloat16 X[batch][M][K], const bfloat16 W[N][K],
                         const float bias[N], bfloat16 Y[batch][M][N])
{
#pragma tile grid
    for (int b = 0; b < batch; b++)
        for (int by = 0; by < tile_cdiv(M, 128); by++)
            for (int bx = 0; bx < tile_cdiv(N, 128); bx++) {
#pragma tile shared
                bfloat16 Xs[128][64], Ws[128][64];
#pragma tile fragment
                float acc[128][128];
                tile_clear(acc);
#pragma tile pipelined stages(4)
                for (int k = 0; k < tile_cdiv(K, 64); k++) {
                    tile_load(Xs, X[b], by * 128, k * 64, M, K);
                    tile_load(Ws, W, bx * 128, k * 64, N, K);
                    tile_gemm_nt(Xs, Ws, acc);
                }
#pragma tile parallel
                for (int i = 0; i < 128; i++)
                    for (int j = 0; j < 128; j++) {
                        int n = bx * 128 + j;
                        float v = acc[i][j] + (n < N ? bias[n] : 0.0f);
                        acc[i][j] = v / (1.0f + expf(-v));
                    }
                tile_store(Y[b], acc, by * 128, bx * 128, M, N);
            }
}

/* Scores with a causal mask (row r sees keys 0 .. r % N) and a
 * temperature, softmax over each row of a tile that holds all N keys
 * (N <= 128), written straight to P from the parallel loop under the
 * user's own bounds test (no tile_store). The masked and padding columns
 * are -inf; key 0 is always visible, so no row is all -inf. */
#pragma tile kernel threads(128)
void causal_scores(int M, int N, int K, float temperature, const half Q[M][K], const half Kt[K][N], float P[M][N])
{
    const float inv_t = 1.0f / temperature;
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 64); by++) {
#pragma tile shared
        half Qs[64][32], Ks[32][128];
#pragma tile fragment
        float S[64][128], mx[64], sum[64];
        tile_clear(S);
#pragma tile pipelined stages(2)
        for (int k = 0; k < tile_cdiv(K, 32); k++) {
            tile_load(Qs, Q, by * 64, k * 32, M, K);
            tile_load(Ks, Kt, k * 32, 0, K, N);
            tile_gemm(Qs, Ks, S);
        }
#pragma tile parallel
        for (int i = 0; i < 64; i++)
            for (int j = 0; j < 128; j++) {
                int row = by * 64 + i;
                S[i][j] = (j < N && j <= row % N) ? S[i][j] * inv_t : -INFINITY;
            }
        tile_reduce_max(S, mx, 1, 1);
#pragma tile parallel
        for (int i = 0; i < 64; i++)
            for (int j = 0; j < 128; j++)
                S[i][j] = expf(S[i][j] - mx[i]);
        tile_reduce_sum(S, sum, 1, 1);
#pragma tile parallel
        for (int i = 0; i < 64; i++)
            for (int j = 0; j < 128; j++) {
                int row = by * 64 + i;
                if (row < M && j < N)
                    P[row][j] = S[i][j] / sum[i];
            }
    }
}

/* Per-column dequantization scales loaded into a 1-D fragment, then a
 * GEMM with A stored transposed (At[K][M]), the scale applied and the
 * column absmax of the result written per row block. */
#pragma tile kernel threads(256)
void scaled_gemm_tn(int M, int N, int K, const half At[K][M], const half B[K][N], const float scale[N], half C[M][N],
                    float colmax[tile_cdiv(M, 128)][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 128); by++)
        for (int bx = 0; bx < tile_cdiv(N, 64); bx++) {
#pragma tile shared
            half As[32][128], Bs[32][64];
#pragma tile fragment
            float acc[128][64], s[64], cm[64];
            tile_load(s, scale, bx * 64, N);
            tile_clear(acc);
#pragma tile pipelined stages(3)
            for (int k = 0; k < tile_cdiv(K, 32); k++) {
                tile_load(As, At, k * 32, by * 128, K, M);
                tile_load(Bs, B, k * 32, bx * 64, K, N);
                tile_gemm_tn(As, Bs, acc);
            }
#pragma tile parallel
            for (int i = 0; i < 128; i++)
                for (int j = 0; j < 64; j++)
                    acc[i][j] = acc[i][j] * s[j];
            tile_reduce_absmax(acc, cm, 0, 1);
            tile_store(C, acc, by * 128, bx * 64, M, N);
            tile_store(colmax[by], cm, bx * 64, N);
        }
}

/* RMSNorm of a GEMM's output rows (N <= 256, one tile wide), with a
 * residual added first: Y = rmsnorm(A B + R) * g, half out. */
#pragma tile kernel threads(256)
void gemm_residual_rmsnorm(int M, int N, int K, float eps, const half A[M][K], const half B[K][N], const half R[M][N],
                           const float g[N], half Y[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 64); by++) {
#pragma tile shared
        half As[64][64], Bs[64][256];
#pragma tile fragment
        float acc[64][256], sq[64][256], ms[64];
        tile_clear(acc);
#pragma tile pipelined stages(3)
        for (int k = 0; k < tile_cdiv(K, 64); k++) {
            tile_load(As, A, by * 64, k * 64, M, K);
            tile_load(Bs, B, k * 64, 0, K, N);
            tile_gemm(As, Bs, acc);
        }
#pragma tile parallel
        for (int i = 0; i < 64; i++)
            for (int j = 0; j < 256; j++) {
                int r = by * 64 + i;
                float v = acc[i][j];
                if (r < M && j < N)
                    v += (float)R[r][j];
                acc[i][j] = v;
                sq[i][j] = v * v;
            }
        tile_reduce_sum(sq, ms, 1, 1);
#pragma tile parallel
        for (int i = 0; i < 64; i++)
            for (int j = 0; j < 256; j++) {
                float gj = j < N ? g[j] : 0.0f;
                acc[i][j] = acc[i][j] / sqrtf(ms[i] / (float)N + eps) * gj;
            }
        tile_store(Y, acc, by * 64, 0, M, N);
    }
}

/* Each output row scaled to unit L2 norm over its N <= 256 columns, a
 * 64 x 256 tile: the norm from a row reduction of the squares (a second
 * fragment: tile_reduce_sum adds values, not squares), a zero row left
 * zero. */
#pragma tile kernel threads(256)
void gemm_row_l2norm(int M, int N, int K, const half A[M][K], const half B[K][N], half C[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 64); by++) {
#pragma tile shared
        half As[64][64], Bs[64][256];
#pragma tile fragment
        float acc[64][256], sq[64][256], nrm[64];
        tile_clear(acc);
#pragma tile pipelined stages(3)
        for (int k = 0; k < tile_cdiv(K, 64); k++) {
            tile_load(As, A, by * 64, k * 64, M, K);
            tile_load(Bs, B, k * 64, 0, K, N);
            tile_gemm(As, Bs, acc);
        }
#pragma tile parallel
        for (int i = 0; i < 64; i++)
            for (int j = 0; j < 256; j++)
                sq[i][j] = acc[i][j] * acc[i][j];
        tile_reduce_sum(sq, nrm, 1, 1);
#pragma tile parallel
        for (int i = 0; i < 64; i++)
            for (int j = 0; j < 256; j++)
                acc[i][j] = nrm[i] > 0.0f ? acc[i][j] / sqrtf(nrm[i]) : 0.0f;
        tile_store(C, acc, by * 64, 0, M, N);
    }
}

/* A two-layer MLP in bf16 with the exact (erf) GELU between the layers,
 * the hidden units in tiles of 64 that never leave the block, and the
 * input added back: Y = X + gelu(X W1 + b1) W2, D = 128 features. */
enum { D_MODEL = 128, UNITS = 64 };
#pragma tile kernel threads(256)
void mlp_block(int M, int hidden, const bfloat16 X[M][D_MODEL], const bfloat16 W1[D_MODEL][hidden],
               const float b1[hidden], const bfloat16 W2[hidden][D_MODEL], float Y[M][D_MODEL])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 128); by++) {
#pragma tile shared
        bfloat16 Xs[128][D_MODEL], W1s[D_MODEL][UNITS], W2s[UNITS][D_MODEL];
#pragma tile fragment
        float H[128][UNITS], Yf[128][D_MODEL];
#pragma tile fragment
        bfloat16 Hb[128][UNITS];
        tile_load(Xs, X, by * 128, 0, M, D_MODEL);
        tile_clear(Yf);
#pragma tile pipelined stages(2)
        for (int u = 0; u < tile_cdiv(hidden, UNITS); u++) {
            tile_load(W1s, W1, 0, u * UNITS, D_MODEL, hidden);
            tile_load(W2s, W2, u * UNITS, 0, hidden, D_MODEL);
            tile_clear(H);
            tile_gemm(Xs, W1s, H);
#pragma tile parallel
            for (int i = 0; i < 128; i++)
                for (int j = 0; j < UNITS; j++) {
                    int unit = u * UNITS + j;
                    float v = H[i][j] + (unit < hidden ? b1[unit] : 0.0f);
                    H[i][j] = 0.5f * v * (1.0f + erff(v * 0.70710678f));
                }
            tile_copy(Hb, H);
            tile_gemm(Hb, W2s, Yf);
        }
#pragma tile parallel
        for (int i = 0; i < 128; i++)
            for (int j = 0; j < D_MODEL; j++) {
                int r = by * 128 + i;
                if (r < M)
                    Yf[i][j] += (float)X[r][j];
            }
        tile_store(Y, Yf, by * 128, 0, M, D_MODEL);
    }
}
