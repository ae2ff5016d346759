/* tile_mma_sm80.cuh — tensor-core GEMM building blocks for the sm_80 path.
 *
 * The translator composes these into a multi-stage GEMM mainloop:
 *
 *   smem_tile   a row-major tile in shared memory whose 16-byte chunks are
 *               XOR-swizzled, so that cp.async stores and ldmatrix loads are
 *               free of bank conflicts;
 *   load_async  the whole block copies a tile of a global matrix into one
 *               (cp.async, zero fill past the matrix edge, any alignment);
 *   commit/wait cp.async groups, one group per pipeline stage;
 *   accum       a BM x BN fp32 accumulator spread over the warps' registers
 *               in the layout of mma.sync m16n8k16;
 *   mma         C += A * B from two shared-memory tiles (ldmatrix, mma.sync);
 *   store       the accumulator to a global matrix, converted, bounds-checked;
 *   gemm_pipeline  optional: the whole pipelined mainloop of the canonical
 *               "load A, load B, gemm" loop, fragments pipelined across the
 *               barrier;
 *   raster      the block -> tile map of `tile grid swizzle(P)`.
 *
 * The code runs on sm_80 and newer (sm_90 included). Plain cp.async, ldmatrix
 * and mma.sync have no wrapper in CCCL's cuda::ptx, so they are inline PTX
 * here, each in one small function.
 *
 * The mainloop these are made for (tests/mma/gemm_ref_kernel.cu spells it out):
 *
 *   accum<BM, BN, WM, WN> C; C.clear();
 *   for (s = 0; s < S - 1; s++) { if (s < KT) { load_async A, B into stage s } commit(); }
 *   for (k = 0; k < KT; k++) {
 *       wait<S - 2>(); __syncthreads();
 *       if (k + S - 1 < KT) { load_async A, B of k + S - 1 into stage (k + S - 1) % S }
 *       commit();
 *       mma<A_KMAJOR, B_KMAJOR, T, BM, BN, BK, WM, WN>(A stage k % S, B stage k % S, C);
 *   }
 *   store<TO>(dst, ld, r0, c0, rows, cols, C);
 *
 * Measured on an H200 (tests/mma/README.md): the fastest shapes keep a 64 x 64
 * warp tile (BM / WM = BN / WN = 64) and BK = 64: 128 x 128 x 64 with 4 warps
 * and 3 stages (two blocks per SM, 96 KB each) or 128 x 256 x 64 with 8 warps.
 * Warp tiles of 64 x 32 read shared memory too often for the tensor cores,
 * and 8 warps on a 128 x 128 tile need __launch_bounds__(256, 2) (128
 * registers) to fit two blocks per SM. load_async<THREADS, 16> (the caller
 * guarantees 16-byte aligned rows: check the pointers and leading dimensions
 * in the launcher and pick the instantiation) drops the code of the unaligned
 * copies, which saves registers in the mainloop.
 *
 * Conventions: blocks are one-dimensional (threadIdx.x) and every thread of
 * the block calls load_async, mma and store with the same arguments. Element
 * types are 16-bit floats: tile_half / tile_bfloat16 (tile_runtime.cuh) or
 * CUDA's __half / __nv_bfloat16, which have the same layout. */
#ifndef TILEPP_TILE_MMA_SM80_CUH
#define TILEPP_TILE_MMA_SM80_CUH

#include "tile_runtime.cuh"

namespace tile80
{

/* ---- element types ---- */

template <typename T> struct element;
template <> struct element<tile_half> {
    static constexpr bool bf16 = false;
};
template <> struct element<__half> {
    static constexpr bool bf16 = false;
};
template <> struct element<tile_bfloat16> {
    static constexpr bool bf16 = true;
};
template <> struct element<__nv_bfloat16> {
    static constexpr bool bf16 = true;
};

/* ---- PTX ---- */
namespace ptx
{

__device__ __forceinline__ uint32_t smem_addr(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }

/* x, hidden from the optimizer: what is computed from it is computed where it
 * is used, not hoisted out of the mainloop into registers that the
 * accumulators and fragments need. */
__device__ __forceinline__ long long opaque(long long x)
{
    asm volatile("mov.b64 %0, %0;\n" : "+l"(x));
    return x;
}

/* cp.async of 16 bytes, cached in L2 only (.cg), with a hint to fetch the
 * whole 128-byte L2 line, which the neighbouring threads read too. */
__device__ __forceinline__ void cp_async_16(uint32_t dst, const void *src)
{
    asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16;\n" ::"r"(dst), "l"(src) : "memory");
}

/* The same, reading only `src_bytes` (0..16) and zero-filling the rest. */
__device__ __forceinline__ void cp_async_16_zfill(uint32_t dst, const void *src, int src_bytes)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes) : "memory");
}

/* 4-byte cp.async (only .ca exists for sizes below 16), zero-filling. */
__device__ __forceinline__ void cp_async_4_zfill(uint32_t dst, const void *src, int src_bytes)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes) : "memory");
}

/* Four 8x8 matrices of 16-bit elements; lane i gives the address of row i%8
 * of matrix i/8 and receives, in r[j], its two elements of matrix j. */
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], uint32_t addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

/* The same, each matrix transposed on the way. */
__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t (&r)[4], uint32_t addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

/* d += a * b, one m16n8k16 product with fp32 accumulators. */
template <bool BF16>
__device__ __forceinline__ void mma_16816(float *d, const uint32_t (&a)[4], uint32_t b0, uint32_t b1)
{
    if constexpr (BF16)
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                     "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    else
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                     "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

} // namespace ptx

/* ---- shared-memory tiles ----
 * ROWS x COLS elements, row-major, in 16-byte chunks (8 half or bfloat16
 * elements, 4 floats: float tiles feed no products, only loads, stores,
 * copies, reductions and the block's loops). The chunk
 * index inside a row is XORed with a function of the row so that any 8
 * consecutive rows read at the same column (one ldmatrix phase) and any 8
 * consecutive chunks written by 8 threads (one cp.async phase) fall into the
 * 8 different 16-byte slots of a 128-byte bank line:
 *   rows of a multiple of 128 bytes: chunk ^ (row % 8), a permutation of
 *                     each aligned group of 8 chunks;
 *   other rows (64, 192, 320, ... bytes: a half line left over):
 *                     chunk ^ (row / 2 % 4), a permutation of each aligned
 *                     group of 4 chunks. Rows r and r + 1 start half a line
 *                     apart, so the XOR need only part pairs of rows. (XOR
 *                     with row % 8 would send chunks 8-11 of a 192-byte row
 *                     to 12-15: into the next row, or past the tile.)
 * The tile's base must be 128-byte aligned (so that bank lines line up). */
template <typename T, int ROWS, int COLS> struct smem_tile {
    static_assert(sizeof(T) == 2 || sizeof(T) == 4, "tile80: 16-bit or 32-bit element types only");
    static constexpr int rows = ROWS, cols = COLS;
    static constexpr int ELEMS_PER_CHUNK = 16 / (int)sizeof(T);
    static constexpr int CHUNKS_PER_ROW = COLS / ELEMS_PER_CHUNK;
    static constexpr int ROW_BYTES = COLS * (int)sizeof(T);
    static_assert(ROWS > 0 && ROW_BYTES % 64 == 0, "tile80: a tile row must be a multiple of 64 bytes");
    static_assert(ROW_BYTES % 128 == 0 || ROWS % 2 == 0, "tile80: rows with half a line left over come in pairs");
    static constexpr int bytes = ROWS * COLS * (int)sizeof(T);

    T *ptr;

    static __host__ __device__ constexpr int swizzle(int row)
    {
        return ROW_BYTES % 128 == 0 ? (row & 7) : ((row >> 1) & 3);
    }
    /* Byte offset of the 16-byte chunk `chunk` of row `row`. */
    static __host__ __device__ constexpr uint32_t chunk_offset(int row, int chunk)
    {
        return (uint32_t)(row * ROW_BYTES + ((chunk ^ swizzle(row)) << 4));
    }
    /* Element (r, c), for code that reads or writes the tile one element at a time. */
    __device__ T &operator()(int r, int c) const
    {
        char *p = reinterpret_cast<char *>(ptr) + chunk_offset(r, c / ELEMS_PER_CHUNK);
        return reinterpret_cast<T *>(p)[c % ELEMS_PER_CHUNK];
    }
};

/* Bytes a ROWS x COLS tile needs; a multiple of 128, so tiles laid out one
 * after another in a 128-byte aligned buffer all stay aligned. */
template <typename T, int ROWS, int COLS> __host__ __device__ constexpr int smem_bytes()
{
    return smem_tile<T, ROWS, COLS>::bytes;
}

namespace detail
{
/* The 16-byte copies of a tile that lies inside its matrix, when the
 * block's threads cover whole rows of chunks (THREADS a multiple of the
 * chunks per row): each thread copies one column of chunks, every RSTEP-th
 * row, from g (its first chunk in global memory) to sbase + soff (its first
 * chunk in the stage) onwards. One running pointer, and shared offsets that
 * differ by constants when RSTEP keeps the swizzle (a multiple of 8 rows). */
template <int THREADS, typename Tile, typename T>
__device__ __forceinline__ void copy_columns(uint32_t sbase, uint32_t soff, const T *g, long long ld)
{
    constexpr int CPR = Tile::CHUNKS_PER_ROW, CHUNKS = Tile::rows * CPR, RSTEP = THREADS / CPR;
    constexpr int ITERS = (CHUNKS + THREADS - 1) / THREADS;
    static_assert(THREADS % CPR == 0, "tile80::copy_columns: the threads cover whole rows of chunks");
    const int tid = threadIdx.x;
    const long long step = RSTEP * ld;
#pragma unroll
    for (int i = 0; i < ITERS; i++) {
        if (CHUNKS % THREADS == 0 || tid + i * THREADS < CHUNKS) {
            const uint32_t d = RSTEP % 8 == 0 ? sbase + soff + i * RSTEP * Tile::ROW_BYTES
                                              : sbase + Tile::chunk_offset(tid / CPR + i * RSTEP, tid % CPR);
            ptx::cp_async_16(d, g);
        }
        g += step;
    }
}
} // namespace detail

/* ---- asynchronous tile loads ----
 * Copies rows [r0, r0+ROWS) x cols [c0, c0+COLS) of the rows x cols row-major
 * matrix `src` (leading dimension ld) into dst; what lies outside the matrix
 * reads as 0. One of three copies, chosen for the whole tile (the choice is
 * the same in every thread):
 *   16-byte cp.async  when src, ld and c0 keep every 16-byte chunk aligned
 *                     (the usual case); src-size shrinks at the matrix edge;
 *   4-byte cp.async   when they keep element pairs 4-byte aligned;
 *   element copies    otherwise (e.g. an odd K), through registers with
 *                     ordinary shared stores. These are complete when the call
 *                     returns; the __syncthreads that follows wait() makes
 *                     them visible like the cp.async ones.
 * ALIGN = 16 promises that src, ld * sizeof(T) and c0 * sizeof(T) are all
 * multiples of 16 bytes (c0 = k * BK is; the launcher checks src and ld and
 * picks the instantiation): only the 16-byte copies are compiled. ALIGN = 4
 * promises 4 bytes. ALIGN = 0 (default) decides at run time. Threads beyond THREADS must not call it; THREADS need not
 * divide the number of 16-byte chunks. */
template <int THREADS, int ALIGN = 0, typename T, int ROWS, int COLS>
__device__ __forceinline__ void load_async(smem_tile<T, ROWS, COLS> dst, const T *src, long long ld, long long r0,
                                           long long c0, long long rows, long long cols)
{
    typedef smem_tile<T, ROWS, COLS> tile;
    constexpr int EPC = tile::ELEMS_PER_CHUNK, CPR = tile::CHUNKS_PER_ROW, CHUNKS = ROWS * CPR;
    constexpr int ITERS = (CHUNKS + THREADS - 1) / THREADS;
    constexpr bool EXACT = CHUNKS % THREADS == 0;
    const int tid = threadIdx.x;
    const uint32_t sbase = ptx::smem_addr(dst.ptr);
    /* Addresses are recomputed at each call from an opaque ld: hoisted out of
     * the mainloop, one 64-bit pointer per chunk would take registers that
     * the accumulators need (and spill). */
    ld = ptx::opaque(ld);
    static_assert(ALIGN == 0 || ALIGN == 4 || ALIGN == 16, "tile80::load_async: ALIGN is 0, 4 or 16");
    const unsigned align = ALIGN == 16
                               ? 0u
                               : (unsigned)((uintptr_t)src | (uintptr_t)ld * sizeof(T) | (uintptr_t)c0 * sizeof(T)) &
                                     (ALIGN == 4 ? 12u : 15u);

    if (align == 0 && r0 + ROWS <= rows && c0 + COLS <= cols) {
        /* The tile lies inside the matrix: no checks at all. */
        if constexpr (THREADS % CPR == 0) {
            /* Each thread copies one column of chunks, every RSTEP-th row:
             * one running pointer, and shared offsets that differ by
             * constants when RSTEP keeps the swizzle (a multiple of 8 rows). */
            const int r = tid / CPR, c = tid % CPR;
            detail::copy_columns<THREADS, tile>(sbase, tile::chunk_offset(r, c), src + (r0 + r) * ld + c0 + c * EPC,
                                                ld);
        } else {
            const T *base = src + r0 * ld + c0;
#pragma unroll
            for (int i = 0; i < ITERS; i++) {
                const int idx = tid + i * THREADS;
                if (EXACT || idx < CHUNKS) {
                    const int r = idx / CPR, c = idx % CPR;
                    ptx::cp_async_16(sbase + tile::chunk_offset(r, c), base + r * ld + c * EPC);
                }
            }
        }
    } else if (align == 0) {
        /* At the edge: each chunk reads the elements that exist. */
#pragma unroll
        for (int i = 0; i < ITERS; i++) {
            const int idx = tid + i * THREADS;
            if (EXACT || idx < CHUNKS) {
                const int r = idx / CPR, c = idx % CPR;
                const long long gr = r0 + r, gc = c0 + (long long)c * EPC;
                const long long left = gr < rows ? cols - gc : 0;
                const int n = left <= 0 ? 0 : left >= EPC ? EPC : (int)left;
                const T *g = n > 0 ? src + gr * ld + gc : src;
                ptx::cp_async_16_zfill(sbase + tile::chunk_offset(r, c), g, n * (int)sizeof(T));
            }
        }
    } else if ((align & 3) == 0) {
        /* Element pairs are 4-byte aligned: four 4-byte copies per chunk. */
        constexpr int EPP = 4 / (int)sizeof(T);
#pragma unroll
        for (int i = 0; i < ITERS; i++) {
            const int idx = tid + i * THREADS;
            if (EXACT || idx < CHUNKS) {
                const int r = idx / CPR, c = idx % CPR;
                const long long gr = r0 + r, gc = c0 + (long long)c * EPC;
                const uint32_t d = sbase + tile::chunk_offset(r, c);
#pragma unroll
                for (int p = 0; p < EPC / EPP; p++) {
                    const long long left = gr < rows ? cols - (gc + p * EPP) : 0;
                    const int n = left <= 0 ? 0 : left >= EPP ? EPP : (int)left;
                    const T *g = n > 0 ? src + gr * ld + gc + p * EPP : src;
                    ptx::cp_async_4_zfill(d + 4 * p, g, n * (int)sizeof(T));
                }
            }
        }
    } else if constexpr (sizeof(T) == 2) {
        /* Anything else (16-bit elements: a 4-byte element is always
         * 4-byte aligned): element by element, 16-byte shared stores. */
        const unsigned short *s = reinterpret_cast<const unsigned short *>(src);
#pragma unroll
        for (int i = 0; i < ITERS; i++) {
            const int idx = tid + i * THREADS;
            if (EXACT || idx < CHUNKS) {
                const int r = idx / CPR, c = idx % CPR;
                const long long gr = r0 + r, gc = c0 + (long long)c * EPC;
                unsigned short e[EPC];
#pragma unroll
                for (int j = 0; j < EPC; j++)
                    e[j] = gr < rows && gc + j < cols ? s[gr * ld + gc + j] : (unsigned short)0;
                uint4 v;
                memcpy(&v, e, sizeof v);
                *reinterpret_cast<uint4 *>(reinterpret_cast<char *>(dst.ptr) + tile::chunk_offset(r, c)) = v;
            }
        }
    }
}

/* The copies of a tile that a loop loads again and again from one matrix
 * (same pointer and leading dimension, any origin): this thread's part of
 * the address — its chunk's row and column in the tile, and where the chunk
 * goes in shared memory — worked out once, before the loop. A tile inside
 * the matrix then costs one multiply-add for the origin and one add per
 * 16-byte copy; other tiles (at the edges, or with ALIGN = 0) go through
 * load_async. Three registers a thread. */
template <int THREADS, int ALIGN, typename T, int ROWS, int COLS> struct copier {
    typedef smem_tile<T, ROWS, COLS> tile;
    static constexpr int CPR = tile::CHUNKS_PER_ROW;
    static constexpr bool FAST = ALIGN == 16 && THREADS % CPR == 0;

    const T *g;    /* src + this thread's chunk at origin (0, 0) */
    uint32_t soff; /* ... and its place in the tile */

    __device__ __forceinline__ copier(const T *src, long long ld)
    {
        const int r = (int)threadIdx.x / CPR, c = (int)threadIdx.x % CPR;
        g = src + r * ld + c * tile::ELEMS_PER_CHUNK;
        soff = tile::chunk_offset(r, c);
    }

    /* load_async(dst, src, ld, r0, c0, rows, cols) for this copier's matrix. */
    __device__ __forceinline__ void load(tile dst, const T *src, long long ld, long long r0, long long c0,
                                         long long rows, long long cols) const
    {
        if constexpr (FAST) {
            if (r0 >= 0 && c0 >= 0 && r0 + ROWS <= rows && c0 + COLS <= cols) {
                detail::copy_columns<THREADS, tile>(ptx::smem_addr(dst.ptr), soff, g + r0 * ld + c0, ld);
                return;
            }
        }
        load_async<THREADS, ALIGN>(dst, src, ld, r0, c0, rows, cols);
    }
};

/* Closes the group of cp.async copies this thread issued since the last commit. */
__device__ __forceinline__ void commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }

/* Waits until at most N of this thread's committed groups are still in flight.
 * The block must still __syncthreads() before reading what others copied. */
template <int N> __device__ __forceinline__ void wait()
{
    static_assert(N >= 0 && N <= 7, "tile80::wait: 0 <= N <= 7");
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

namespace detail
{
/* The accumulator layout both paths share (mma.sync m16n8 pieces here, the
 * m64nN results of wgmma on sm_90a): value (mi * NI + ni) * 4 + e of a thread
 * sits at row row0() + mi * ROW_STEP + (e / 2) * 8, column col0() + ni * 8 +
 * e % 2 of the tile. f(float &value, int row, int col). */
template <typename Acc, typename F> __device__ __forceinline__ void for_each(Acc &C, F f)
{
    const int r = Acc::row0(), c = Acc::col0();
#pragma unroll
    for (int mi = 0; mi < Acc::MI; mi++)
#pragma unroll
        for (int ni = 0; ni < Acc::NI; ni++)
#pragma unroll
            for (int e = 0; e < 4; e++)
                f(C.v[(mi * Acc::NI + ni) * 4 + e], r + mi * Acc::ROW_STEP + (e >> 1) * 8, c + ni * 8 + (e & 1));
}
} // namespace detail

/* ---- accumulators ----
 * The BM x BN tile is cut into WARPS_M x WARPS_N warp tiles of WTM x WTN;
 * warp w owns warp tile (w / WARPS_N, w % WARPS_N). Inside a warp tile, each
 * 16 x 8 piece (mi, ni) is one mma accumulator: lane l holds rows l/4 and
 * l/4 + 8, columns 2*(l%4) and 2*(l%4) + 1, as v[(mi*NI + ni)*4 + {0,1,2,3}]
 * = (row, col), (row, col+1), (row+8, col), (row+8, col+1). */
template <int BM_, int BN_, int WARPS_M, int WARPS_N> struct accum {
    static constexpr int BM = BM_, BN = BN_;
    static constexpr int THREADS = 32 * WARPS_M * WARPS_N;
    static constexpr int WTM = BM / WARPS_M, WTN = BN / WARPS_N;
    static_assert(BM % WARPS_M == 0 && BN % WARPS_N == 0, "tile80::accum: warps must divide the tile");
    static_assert(WTM % 16 == 0 && WTN % 16 == 0, "tile80::accum: warp tiles are multiples of 16 x 16");
    static constexpr int MI = WTM / 16, NI = WTN / 8;
    static constexpr int COUNT = MI * NI * 4;
    static constexpr int ROW_STEP = 16; /* rows between the pieces mi and mi + 1 */
    static constexpr int WARP_COLS = WARPS_N; /* warps side by side over a row */
    static constexpr int ROW_LANES = 4;       /* consecutive lanes sharing a row (a quad) */

    float v[COUNT];

    /* The warp index. (Plain arithmetic on threadIdx.x, so that the compiler
     * can hoist what depends on it out of the mainloop.) */
    static __device__ __forceinline__ int warp() { return (int)threadIdx.x >> 5; }
    static __device__ __forceinline__ int warp_m() { return warp() / WARPS_N; }
    static __device__ __forceinline__ int warp_n() { return warp() % WARPS_N; }
    /* Tile coordinates of v[i] in this thread. */
    static __device__ __forceinline__ int row_of(int i)
    {
        return warp_m() * WTM + (i / (NI * 4)) * 16 + (int)(threadIdx.x & 31) / 4 + ((i >> 1) & 1) * 8;
    }
    static __device__ __forceinline__ int col_of(int i)
    {
        return warp_n() * WTN + ((i / 4) % NI) * 8 + (int)(threadIdx.x & 3) * 2 + (i & 1);
    }

    __device__ __forceinline__ void clear()
    {
#pragma unroll
        for (int i = 0; i < COUNT; i++)
            v[i] = 0.0f;
    }

    /* f(float &value, int row, int col) for each of this thread's values; row
     * and col are coordinates inside the BM x BN tile (add the tile's origin
     * for matrix coordinates). */
    template <typename F> __device__ __forceinline__ void for_each(F f) { detail::for_each(*this, f); }

    /* Tile coordinates of this thread's first value, v[0]. */
    static __device__ __forceinline__ int row0() { return warp_m() * WTM + (int)(threadIdx.x & 31) / 4; }
    static __device__ __forceinline__ int col0() { return warp_n() * WTN + (int)(threadIdx.x & 3) * 2; }

    /* The rows a thread holds: MI * 2, row slot s at row slot_row(s); v[i]
     * sits in row slot row_slot(i) (rows_frag keeps one value a slot). */
    static constexpr int ROW_SLOTS = MI * 2;
    static __device__ __forceinline__ int row_slot(int i) { return (i / (NI * 4)) * 2 + ((i >> 1) & 1); }
    static __device__ __forceinline__ int slot_row(int s) { return row0() + (s >> 1) * ROW_STEP + (s & 1) * 8; }
    /* The columns a thread holds: NI * 2, column slot s at column
     * slot_col(s); v[i] sits in column slot col_slot(i) (cols_frag). A
     * column is held by the lanes of one l % ROW_LANES in the COL_WARPS
     * warps stacked over the rows, col_warp() being this thread's. */
    static constexpr int COL_SLOTS = NI * 2;
    static constexpr int COL_WARPS = WARPS_M;
    static __device__ __forceinline__ int col_slot(int i) { return ((i / 4) % NI) * 2 + (i & 1); }
    static __device__ __forceinline__ int slot_col(int s) { return col0() + (s >> 1) * 8 + (s & 1); }
    static __device__ __forceinline__ int col_warp() { return warp_m(); }
    /* Column reductions combine the warps through `scratch` (COL_WARPS x BN
     * floats, lowering's), between barriers of the block. */
    static __device__ __forceinline__ float *col_scratch(float *scratch) { return scratch; }
    static __device__ __forceinline__ void cols_sync() { __syncthreads(); }
};

/* ---- strips ----
 * The layout of a fragment no product writes (loaded, combined element by
 * element, reduced along rows, stored): each thread holds strips of VEC
 * consecutive columns of a row, so that a load or store of a strip moves 16
 * bytes, and a row's values sit in consecutive lanes of one warp (its
 * reduction is a butterfly of shuffles among them). The BM x BN tile is cut
 * into WARPS_M x WARPS_N warp tiles of WTM x WTN, warp w owning warp tile
 * (w / WARPS_N, w % WARPS_N). Inside it the 32 lanes stand LR x LC: LC lanes
 * side by side cover LC * VEC columns of a row, and the warp steps LR rows
 * (row slots) and LC * VEC columns (NQ strips a row) at a time. A row's
 * reduction takes log2(LC) shuffles a row slot: lowering picks LC as small
 * as keeps each row's part of a warp's access a whole 128-byte line. Value
 * (s * NQ + q) * VEC + e of a thread sits at row row0() + s * LR, column
 * col0() + q * LC * VEC + e. The same interface as accum (rows_frag,
 * reduce_rows, for_each), so that what runs on one runs on the other. */
template <int BM_, int BN_, int WARPS_M, int WARPS_N, int VEC_, int LC_> struct strips {
    static constexpr int BM = BM_, BN = BN_, VEC = VEC_;
    static constexpr int THREADS = 32 * WARPS_M * WARPS_N;
    static constexpr int WTM = BM / WARPS_M, WTN = BN / WARPS_N;
    static constexpr int LC = LC_, LR = 32 / LC;
    static_assert(BM % WARPS_M == 0 && BN % WARPS_N == 0 && LC > 0 && LC <= 32 && (LC & (LC - 1)) == 0 &&
                      WTN % (LC * VEC) == 0 && WTM % LR == 0,
                  "tile80::strips: the warp tile must split into whole strips of whole rows");
    static constexpr int NQ = WTN / (LC * VEC);
    static constexpr int ROW_SLOTS = WTM / LR;
    static constexpr int COUNT = ROW_SLOTS * NQ * VEC;
    static constexpr int WARP_COLS = WARPS_N;
    static constexpr int ROW_LANES = LC;

    float v[COUNT];

    static __device__ __forceinline__ int lane() { return (int)threadIdx.x & 31; }
    static __device__ __forceinline__ int warp() { return (int)threadIdx.x >> 5; }
    static __device__ __forceinline__ int warp_m() { return warp() / WARPS_N; }
    static __device__ __forceinline__ int warp_n() { return warp() % WARPS_N; }
    static __device__ __forceinline__ int row0() { return warp_m() * WTM + lane() / LC; }
    static __device__ __forceinline__ int col0() { return warp_n() * WTN + (lane() % LC) * VEC; }
    static __device__ __forceinline__ int row_slot(int i) { return i / (NQ * VEC); }
    static __device__ __forceinline__ int slot_row(int s) { return row0() + s * LR; }
    /* Strip k of the thread's STRIPS (values k * VEC .. k * VEC + VEC - 1):
     * its row and first column in the tile. */
    static constexpr int STRIPS = ROW_SLOTS * NQ;
    static __device__ __forceinline__ int strip_row(int k) { return slot_row(k / NQ); }
    static __device__ __forceinline__ int strip_col(int k) { return col0() + (k % NQ) * LC * VEC; }
    static __device__ __forceinline__ int row_of(int i) { return strip_row(i / VEC); }
    static __device__ __forceinline__ int col_of(int i) { return strip_col(i / VEC) + i % VEC; }
    /* Columns, as accum's: a column's values sit in the lanes of one
     * l % LC of the warps stacked over the rows. */
    static constexpr int COL_SLOTS = NQ * VEC;
    static constexpr int COL_WARPS = WARPS_M;
    static __device__ __forceinline__ int col_slot(int i) { return i % (NQ * VEC); }
    static __device__ __forceinline__ int slot_col(int s) { return col0() + (s / VEC) * LC * VEC + s % VEC; }
    static __device__ __forceinline__ int col_warp() { return warp_m(); }
    static __device__ __forceinline__ float *col_scratch(float *scratch) { return scratch; }
    static __device__ __forceinline__ void cols_sync() { __syncthreads(); }

    __device__ __forceinline__ void clear()
    {
#pragma unroll
        for (int i = 0; i < COUNT; i++)
            v[i] = 0.0f;
    }

    template <typename F> __device__ __forceinline__ void for_each(F f)
    {
#pragma unroll
        for (int i = 0; i < COUNT; i++)
            f(v[i], row_of(i), col_of(i));
    }
};

namespace detail
{
/* VEC elements of T, aligned as one access when that is a 4-, 8- or 16-byte
 * load or store (else element by element: chunk_ok is false). */
template <typename T, int VEC> struct chunk {
    static constexpr int BYTES = VEC * (int)sizeof(T);
    static constexpr bool ok = BYTES == 4 || BYTES == 8 || BYTES == 16;
    struct alignas(ok ? BYTES : alignof(T)) type {
        T e[VEC];
    };
    /* Whether the strips of a window at column c0 of a matrix (leading
     * dimension ld) start on a chunk boundary. */
    static __device__ __forceinline__ bool aligned(const void *m, long long ld, long long c0)
    {
        return ok && (((uintptr_t)m | (uintptr_t)ld * sizeof(T) | (uintptr_t)c0 * sizeof(T)) % BYTES) == 0;
    }
    /* Chunk x into out[0 .. VEC - 1], each element rounded to TF. */
    template <typename TF> static __device__ __forceinline__ void get(float *out, const type &x)
    {
#pragma unroll
        for (int e = 0; e < VEC; e++)
            out[e] = (float)(TF)x.e[e];
    }
};
} // namespace detail

/* ---- tensor-core product ----
 * Fragment loads for one 16 x 16 (A: m x k) or 16 x 16 (B: n x k) piece at
 * tile coordinates (m0 or n0, k0), both multiples of 16. */
namespace detail
{

/* A, in the order mma wants: a0 = (m 0-7, k 0-7), a1 = (m 8-15, k 0-7),
 * a2 = (m 0-7, k 8-15), a3 = (m 8-15, k 8-15). */
template <bool KMAJOR, typename Tile>
__device__ __forceinline__ void load_a(uint32_t (&a)[4], uint32_t base, int m0, int k0, int lane)
{
    if constexpr (KMAJOR) { /* tile rows are m, columns k */
        const int row = m0 + (lane & 15), chunk = (k0 >> 3) + (lane >> 4);
        ptx::ldmatrix_x4(a, base + Tile::chunk_offset(row, chunk));
    } else { /* tile rows are k, columns m: transpose */
        const int j = lane >> 3;
        const int row = k0 + (lane & 7) + ((j >> 1) << 3), chunk = (m0 >> 3) + (j & 1);
        ptx::ldmatrix_x4_trans(a, base + Tile::chunk_offset(row, chunk));
    }
}

/* B for two n8 pieces: b[0], b[1] = (k 0-7), (k 8-15) of n 0-7; b[2], b[3] the
 * same of n 8-15. */
template <bool KMAJOR, typename Tile>
__device__ __forceinline__ void load_b(uint32_t (&b)[4], uint32_t base, int n0, int k0, int lane)
{
    const int j = lane >> 3;
    if constexpr (KMAJOR) { /* tile rows are n, columns k */
        const int row = n0 + (lane & 7) + ((j >> 1) << 3), chunk = (k0 >> 3) + (j & 1);
        ptx::ldmatrix_x4(b, base + Tile::chunk_offset(row, chunk));
    } else { /* tile rows are k, columns n: transpose */
        const int row = k0 + (lane & 7) + ((j & 1) << 3), chunk = (n0 >> 3) + (j >> 1);
        ptx::ldmatrix_x4_trans(b, base + Tile::chunk_offset(row, chunk));
    }
}

/* The fragments of one 16-deep step k0 of a warp tile: A for MI pieces of 16
 * rows, B for NJ pairs of n8 pieces. */
template <bool A_KMAJOR, bool B_KMAJOR, typename ATile, typename BTile, int MI, int NJ>
__device__ __forceinline__ void load_frags(uint32_t (&a)[MI][4], uint32_t (&b)[NJ][4], uint32_t abase, uint32_t bbase,
                                           int wm0, int wn0, int k0, int lane)
{
#pragma unroll
    for (int mi = 0; mi < MI; mi++)
        load_a<A_KMAJOR, ATile>(a[mi], abase, wm0 + mi * 16, k0, lane);
#pragma unroll
    for (int nj = 0; nj < NJ; nj++)
        load_b<B_KMAJOR, BTile>(b[nj], bbase, wn0 + nj * 16, k0, lane);
}

/* acc += a * b for the whole warp tile, in serpentine order over n (the
 * neighbouring products share an operand). */
template <bool BF16, int MI, int NJ>
__device__ __forceinline__ void mma_frags(float *acc, const uint32_t (&a)[MI][4], const uint32_t (&b)[NJ][4])
{
    constexpr int NI = 2 * NJ;
#pragma unroll
    for (int mi = 0; mi < MI; mi++)
#pragma unroll
        for (int n = 0; n < NI; n++) {
            const int ni = mi & 1 ? NI - 1 - n : n;
            ptx::mma_16816<BF16>(&acc[(mi * NI + ni) * 4], a[mi], b[ni >> 1][(ni & 1) * 2],
                                 b[ni >> 1][(ni & 1) * 2 + 1]);
        }
}

template <bool A_KMAJOR, bool B_KMAJOR, int BM, int BN, int BK, typename ATile, typename BTile> struct check_tiles {
    static_assert(A_KMAJOR ? (ATile::rows == BM && ATile::cols == BK) : (ATile::rows == BK && ATile::cols == BM),
                  "tile80: the A tile is BM x BK (A_KMAJOR) or BK x BM");
    static_assert(B_KMAJOR ? (BTile::rows == BN && BTile::cols == BK) : (BTile::rows == BK && BTile::cols == BN),
                  "tile80: the B tile is BN x BK (B_KMAJOR) or BK x BN");
    static_assert(BK % 16 == 0, "tile80: BK is a multiple of 16");
    static constexpr bool ok = true;
};

} // namespace detail

/* C += A * B over one BK slice. A is BM x BK (A_KMAJOR) or BK x BM; B is
 * BN x BK (B_KMAJOR) or BK x BN. Each warp computes its warp tile 16 deep at
 * a time, loading the fragments of step kk+1 while it multiplies those of kk. */
template <bool A_KMAJOR, bool B_KMAJOR, typename T, int BM, int BN, int BK, int WM, int WN, int AR, int AC, int BR,
          int BC>
__device__ __forceinline__ void mma(const smem_tile<T, AR, AC> &A, const smem_tile<T, BR, BC> &B,
                                    accum<BM, BN, WM, WN> &C)
{
    typedef accum<BM, BN, WM, WN> acc;
    typedef smem_tile<T, AR, AC> ATile;
    typedef smem_tile<T, BR, BC> BTile;
    static_assert(detail::check_tiles<A_KMAJOR, B_KMAJOR, BM, BN, BK, ATile, BTile>::ok, "");
    constexpr int MI = acc::MI, NJ = acc::NI / 2, KSTEPS = BK / 16;
    constexpr bool BF16 = element<T>::bf16;

    const int lane = (int)threadIdx.x & 31;
    const int wm0 = acc::warp_m() * acc::WTM, wn0 = acc::warp_n() * acc::WTN;
    const uint32_t abase = ptx::smem_addr(A.ptr), bbase = ptx::smem_addr(B.ptr);

    uint32_t a[2][MI][4], b[2][NJ][4];
    detail::load_frags<A_KMAJOR, B_KMAJOR, ATile, BTile>(a[0], b[0], abase, bbase, wm0, wn0, 0, lane);
#pragma unroll
    for (int kk = 0; kk < KSTEPS; kk++) {
        const int cur = kk & 1, nxt = cur ^ 1;
        if (kk + 1 < KSTEPS)
            detail::load_frags<A_KMAJOR, B_KMAJOR, ATile, BTile>(a[nxt], b[nxt], abase, bbase, wm0, wn0, (kk + 1) * 16,
                                                                 lane);
        detail::mma_frags<BF16>(C.v, a[cur], b[cur]);
    }
}

/* ---- a whole pipelined mainloop ----
 * For the canonical pipelined loop whose body is "load the A and B tiles of
 * iteration i; C += A * B": the same work as
 *
 *   for (s = 0; s < STAGES - 1; s++) { if (s < ktiles) load(s, s); commit(); }
 *   for (i = 0; i < ktiles; i++) {
 *       wait<STAGES - 2>(); __syncthreads();
 *       if (i + STAGES - 1 < ktiles) load((i + STAGES - 1) % STAGES, i + STAGES - 1);
 *       commit();
 *       mma<...>(a_stage(i % STAGES), b_stage(i % STAGES), C);
 *   }
 *
 * but with the fragment loads software-pipelined across the barrier (as
 * CUTLASS's multistage mainloop does): the barrier that makes stage i+1
 * visible sits before the last 16-deep step of stage i, whose fragments are
 * already in registers, so the warp multiplies while the first fragments of
 * stage i+1 arrive, and the tensor cores do not idle at every barrier. The
 * copies of iteration i+STAGES-1 are issued after the first step's products.
 *
 *   a_stage(int s), b_stage(int s)  the smem_tile of stage s
 *   load(int s, long long i)        issues (does not commit) the copies of
 *                                   iteration i into stage s
 * Ends with all copies complete and a barrier, so shared memory can be reused. */
template <int STAGES, bool A_KMAJOR, bool B_KMAJOR, typename T, int BM, int BN, int BK, int WM, int WN, typename AStage,
          typename BStage, typename Load>
__device__ __forceinline__ void gemm_pipeline(long long ktiles, AStage a_stage, BStage b_stage, Load load,
                                              accum<BM, BN, WM, WN> &C)
{
    typedef accum<BM, BN, WM, WN> acc;
    typedef decltype(a_stage(0)) ATile;
    typedef decltype(b_stage(0)) BTile;
    static_assert(detail::check_tiles<A_KMAJOR, B_KMAJOR, BM, BN, BK, ATile, BTile>::ok, "");
    static_assert(STAGES >= 2, "tile80::gemm_pipeline: at least 2 stages");
    constexpr int MI = acc::MI, NJ = acc::NI / 2, KSTEPS = BK / 16;
    static_assert(KSTEPS % 2 == 0, "tile80::gemm_pipeline: BK is a multiple of 32");
    constexpr bool BF16 = element<T>::bf16;

    const int lane = (int)threadIdx.x & 31;
    const int wm0 = acc::warp_m() * acc::WTM, wn0 = acc::warp_n() * acc::WTN;

#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < ktiles)
            load(s, (long long)s);
        commit();
    }
    wait<STAGES - 2>();
    __syncthreads();

    uint32_t a[2][MI][4], b[2][NJ][4];
    int rs = 0, ws = STAGES - 1; /* the stage read, the stage written next */
    uint32_t abase = ptx::smem_addr(a_stage(0).ptr), bbase = ptx::smem_addr(b_stage(0).ptr);
    if (ktiles > 0)
        detail::load_frags<A_KMAJOR, B_KMAJOR, ATile, BTile>(a[0], b[0], abase, bbase, wm0, wn0, 0, lane);

    for (long long kt = 0; kt < ktiles; kt++) {
#pragma unroll
        for (int kk = 0; kk < KSTEPS; kk++) {
            const int cur = kk & 1, nxt = cur ^ 1;
            if (kk + 1 < KSTEPS) {
                detail::load_frags<A_KMAJOR, B_KMAJOR, ATile, BTile>(a[nxt], b[nxt], abase, bbase, wm0, wn0,
                                                                     (kk + 1) * 16, lane);
            } else if (kt + 1 < ktiles) {
                /* Stage kt+1 has landed (this thread's copies, then everyone's);
                 * every warp is done reading stage kt-1, which the copies
                 * issued in the next iteration overwrite. */
                wait<STAGES - 2>();
                __syncthreads();
                rs = rs + 1 == STAGES ? 0 : rs + 1;
                abase = ptx::smem_addr(a_stage(rs).ptr);
                bbase = ptx::smem_addr(b_stage(rs).ptr);
                detail::load_frags<A_KMAJOR, B_KMAJOR, ATile, BTile>(a[nxt], b[nxt], abase, bbase, wm0, wn0, 0, lane);
            }
            detail::mma_frags<BF16>(C.v, a[cur], b[cur]);
            if (kk == 0) {
                const long long kn = kt + STAGES - 1;
                if (kn < ktiles)
                    load(ws, kn);
                commit();
                ws = ws + 1 == STAGES ? 0 : ws + 1;
            }
        }
    }
    wait<0>();
    __syncthreads();
}

/* ---- epilogue ---- */
namespace detail
{

/* Two adjacent outputs in one store, where the type has a paired form. */
template <typename TO> struct pair_of {
    static constexpr bool ok = false;
};
template <> struct pair_of<float> {
    static constexpr bool ok = true;
    typedef float2 type;
    static __device__ __forceinline__ type make(float x, float y) { return make_float2(x, y); }
};
template <> struct pair_of<__half> {
    static constexpr bool ok = true;
    typedef __half2 type;
    static __device__ __forceinline__ type make(float x, float y) { return __floats2half2_rn(x, y); }
};
template <> struct pair_of<__nv_bfloat16> {
    static constexpr bool ok = true;
    typedef __nv_bfloat162 type;
    static __device__ __forceinline__ type make(float x, float y) { return __floats2bfloat162_rn(x, y); }
};
template <> struct pair_of<tile_half> : pair_of<__half> {
};
template <> struct pair_of<tile_bfloat16> : pair_of<__nv_bfloat16> {
};

template <typename TO> __device__ __forceinline__ void put(TO *p, float x) { *p = TO(x); }
template <> __device__ __forceinline__ void put<__half>(__half *p, float x) { *p = __float2half_rn(x); }
template <> __device__ __forceinline__ void put<__nv_bfloat16>(__nv_bfloat16 *p, float x)
{
    *p = __float2bfloat16_rn(x);
}

} // namespace detail

/* A 16-bit fragment that only ever feeds products as their A operand
 * (lowering decides; FlashAttention's P): the values of a BM x BK float
 * fragment of layout ACC, rounded to T (to nearest even) and packed in
 * pairs as mma.sync and wgmma read an A operand from registers. The
 * accumulator pieces 2 kk and 2 kk + 1 of a row piece mi are the A operand
 * of columns 16 kk .. 16 kk + 15: v[(kk * MI + mi) * 4 + q] holds its four
 * registers. Half the registers of the float form, and no conversion left
 * for the product to do. */
template <typename ACC, typename T> struct packed_a {
    static_assert(ACC::NI % 2 == 0, "tile80::packed_a: the fragment's columns are a multiple of 16");
    static constexpr int MI = ACC::MI, KSTEPS = ACC::NI / 2, COUNT = KSTEPS * MI * 4;
    uint32_t v[COUNT];
    __device__ __forceinline__ void pack(const ACC &P)
    {
        typedef detail::pair_of<T> pair;
#pragma unroll
        for (int kk = 0; kk < KSTEPS; kk++)
#pragma unroll
            for (int mi = 0; mi < MI; mi++) {
                const float *lo = &P.v[(mi * ACC::NI + 2 * kk) * 4], *hi = lo + 4;
                const typename pair::type h[4] = {pair::make(lo[0], lo[1]), pair::make(lo[2], lo[3]),
                                                  pair::make(hi[0], hi[1]), pair::make(hi[2], hi[3])};
                memcpy(&v[(kk * MI + mi) * 4], h, sizeof h);
            }
    }
    /* the four registers of k-step kk, row piece mi */
    __device__ __forceinline__ const uint32_t (&at(int kk, int mi) const)[4]
    {
        return *reinterpret_cast<const uint32_t(*)[4]>(&v[(kk * MI + mi) * 4]);
    }
};

namespace detail
{
/* The quad's 4 x 4 transpose of 32-bit values: lane t of each four holds x[k]
 * for k = 0..3 and ends with x[k] = lane k's old x[t]. Two exchanges, on bit 1
 * and then bit 0 of the lane, each swapping the two values whose slot bit
 * differs from the lane's. */
__device__ __forceinline__ void quad_transpose(uint32_t (&x)[4])
{
    const int t = (int)threadIdx.x & 3;
#pragma unroll
    for (int b = 0; b < 2; b++) { /* bit 1: slots (!t1, b) */
        const bool hi = (t & 2) != 0;
        const uint32_t got = __shfl_xor_sync(0xffffffffu, hi ? x[b] : x[2 + b], 2);
        if (hi)
            x[b] = got;
        else
            x[2 + b] = got;
    }
#pragma unroll
    for (int a = 0; a < 2; a++) { /* bit 0: slots (a, !t0) */
        const bool odd = (t & 1) != 0;
        const uint32_t got = __shfl_xor_sync(0xffffffffu, odd ? x[2 * a] : x[2 * a + 1], 1);
        if (odd)
            x[2 * a] = got;
        else
            x[2 * a + 1] = got;
    }
}
} // namespace detail

/* Writes the accumulator to rows [r0, r0+BM) x cols [c0, c0+BN) of the rows x
 * cols row-major matrix dst (leading dimension ld), converted to TO (rounded
 * to nearest even); nothing outside the matrix is written, r0 and c0 may be
 * negative. 16-bit outputs whose columns all lie inside go out 16 bytes a
 * thread: the four lanes of a row trade their column pairs (quad_transpose)
 * so that each holds 8 consecutive columns, and two lanes fill a 32-byte
 * sector where pairs of columns would fill a quarter of one a store. Else
 * adjacent column pairs go out in one store when dst, ld and c0 keep them
 * aligned. */
template <typename TO, typename Acc>
__device__ __forceinline__ void store(TO *dst, long long ld, long long r0, long long c0, long long rows, long long cols,
                                      const Acc &C)
{
    typedef Acc acc;
    constexpr int BM = Acc::BM, BN = Acc::BN;
    typedef detail::pair_of<TO> pair;
    const long long rb = r0 + acc::row0();
    const long long cb = c0 + acc::col0();
    const uintptr_t bytes = (uintptr_t)dst | (uintptr_t)ld * sizeof(TO) | (uintptr_t)c0 * sizeof(TO);
    const bool paired = pair::ok && (bytes & (2 * sizeof(TO) - 1)) == 0;
    const bool cols_inside = c0 >= 0 && c0 + BN <= cols;

    if constexpr (pair::ok && sizeof(TO) == 2 && acc::NI % 4 == 0) {
        if (cols_inside && (bytes & 15) == 0) {
            const int lane_col = 6 * ((int)threadIdx.x & 3); /* from col0()'s column 2 t to this lane's 8 t */
#pragma unroll
            for (int mi = 0; mi < acc::MI; mi++)
#pragma unroll
                for (int h = 0; h < 2; h++) {
                    const long long r = rb + mi * acc::ROW_STEP + h * 8;
                    const bool inside = r >= 0 && r < rows;
                    TO *row = dst + r * ld + cb + lane_col;
#pragma unroll
                    for (int q = 0; q < acc::NI / 4; q++) {
                        uint32_t x[4];
#pragma unroll
                        for (int k = 0; k < 4; k++) {
                            const float *v = &C.v[(mi * acc::NI + 4 * q + k) * 4 + h * 2];
                            const typename pair::type p = pair::make(v[0], v[1]);
                            memcpy(&x[k], &p, 4);
                        }
                        detail::quad_transpose(x);
                        if (inside)
                            *reinterpret_cast<uint4 *>(row + q * 32) = make_uint4(x[0], x[1], x[2], x[3]);
                    }
                }
            return;
        }
    }
    if constexpr (pair::ok) {
        if (paired && r0 >= 0 && r0 + BM <= rows && cols_inside) {
#pragma unroll
            for (int mi = 0; mi < acc::MI; mi++)
#pragma unroll
                for (int h = 0; h < 2; h++) {
                    TO *row = dst + (rb + mi * acc::ROW_STEP + h * 8) * ld + cb;
#pragma unroll
                    for (int ni = 0; ni < acc::NI; ni++) {
                        const float *v = &C.v[(mi * acc::NI + ni) * 4 + h * 2];
                        *reinterpret_cast<typename pair::type *>(row + ni * 8) = pair::make(v[0], v[1]);
                    }
                }
            return;
        }
    }
#pragma unroll
    for (int mi = 0; mi < acc::MI; mi++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
            const long long r = rb + mi * acc::ROW_STEP + h * 8;
            if (r < 0 || r >= rows)
                continue;
            TO *row = dst + r * ld;
#pragma unroll
            for (int ni = 0; ni < acc::NI; ni++) {
                const long long c = cb + ni * 8;
                const float *v = &C.v[(mi * acc::NI + ni) * 4 + h * 2];
                if constexpr (pair::ok) {
                    if (paired && c >= 0 && c + 1 < cols) {
                        *reinterpret_cast<typename pair::type *>(row + c) = pair::make(v[0], v[1]);
                        continue;
                    }
                }
                if (c >= 0 && c < cols)
                    detail::put(row + c, v[0]);
                if (c + 1 >= 0 && c + 1 < cols)
                    detail::put(row + c + 1, v[1]);
            }
        }
}

/* tile_store of strips: a strip that lies inside the matrix, on a chunk
 * boundary, in one store; the rest element by element, nothing past the
 * edges (r0 and c0 may be negative). */
template <typename TO, int BM, int BN, int WM, int WN, int VEC, int LC>
__device__ __forceinline__ void store(TO *dst, long long ld, long long r0, long long c0, long long rows, long long cols,
                                      const strips<BM, BN, WM, WN, VEC, LC> &C)
{
    typedef strips<BM, BN, WM, WN, VEC, LC> S;
    typedef detail::chunk<TO, VEC> ch;
    const auto put_strip = [&](TO *p, int k) { /* strip k, converted, in one store */
        typename ch::type x;
#pragma unroll
        for (int e = 0; e < VEC; e++)
            detail::put(&x.e[e], C.v[k * VEC + e]);
        *reinterpret_cast<typename ch::type *>(p) = x;
    };
    const bool aligned = ch::aligned(dst, ld, c0);
    if (aligned && r0 >= 0 && c0 >= 0 && r0 + BM <= rows && c0 + BN <= cols) { /* the whole window inside: no tests */
#pragma unroll
        for (int k = 0; k < S::STRIPS; k++)
            put_strip(dst + (r0 + S::strip_row(k)) * ld + c0 + S::strip_col(k), k);
        return;
    }
#pragma unroll
    for (int k = 0; k < S::STRIPS; k++) {
        const long long r = r0 + S::strip_row(k), c = c0 + S::strip_col(k);
        if (r < 0 || r >= rows)
            continue;
        if (aligned && c >= 0 && c + VEC <= cols) {
            put_strip(dst + r * ld + c, k);
            continue;
        }
#pragma unroll
        for (int e = 0; e < VEC; e++)
            if (c + e >= 0 && c + e < cols)
                detail::put(dst + r * ld + c + e, C.v[k * VEC + e]);
    }
}

/* ---- element-wise tile operations ----
 * What tile_clear, tile_fill, tile_copy and the converting or 1-D forms of
 * tile_load and tile_store become: each thread visits its own elements of a
 * tile, f(element, row, col). A fragment's elements are the ones its layout
 * gives the thread; a shared tile's are spread over the block (element e of
 * the row-major order to thread e % THREADS). A 1-D tile is row 0 of a
 * 1 x L tile. */

/* C += P * B with the A operand from registers: P, the BM x BK operand of
 * an earlier product's layout packed as the product reads it (packed_a,
 * such as FlashAttention's probabilities), B is BN x BK (B_KMAJOR) or BK x
 * BN in shared memory. Every warp holds whole rows of P and C (WARPS_N =
 * 1). */
template <bool B_KMAJOR, typename T, int BM, int BK, int BN, int WM, int BR, int BC>
__device__ __forceinline__ void mma_rs(const packed_a<accum<BM, BK, WM, 1>, T> &P, const smem_tile<T, BR, BC> &B,
                                       accum<BM, BN, WM, 1> &C)
{
    typedef accum<BM, BN, WM, 1> acc;
    typedef smem_tile<T, BR, BC> BTile;
    static_assert(B_KMAJOR ? (BR == BN && BC == BK) : (BR == BK && BC == BN),
                  "tile80::mma_rs: the B tile is BN x BK (B_KMAJOR) or BK x BN");
    static_assert(BK % 16 == 0, "tile80::mma_rs: BK is a multiple of 16");
    constexpr int MI = acc::MI, NJ = acc::NI / 2, KSTEPS = BK / 16;
    constexpr bool BF16 = element<T>::bf16;
    const int lane = (int)threadIdx.x & 31;
    const uint32_t bbase = ptx::smem_addr(B.ptr);
    /* B's fragments one n16 pair at a time, not double-buffered as in mma:
     * beside C and P, a whole k-step of them (4 NJ registers, twice) would
     * not fit; the code is unrolled, so the compiler still issues the
     * ldmatrix of the next pair ahead of the products of this one. */
#pragma unroll
    for (int kk = 0; kk < KSTEPS; kk++)
#pragma unroll
        for (int nj = 0; nj < NJ; nj++) {
            uint32_t b[4];
            detail::load_b<B_KMAJOR, BTile>(b, bbase, nj * 16, kk * 16, lane);
#pragma unroll
            for (int mi = 0; mi < MI; mi++)
#pragma unroll
                for (int h = 0; h < 2; h++)
                    ptx::mma_16816<BF16>(&C.v[(mi * acc::NI + 2 * nj + h) * 4], P.at(kk, mi), b[2 * h], b[2 * h + 1]);
        }
}

/* The same with P a float fragment whose elements hold values of T (an
 * earlier product's accumulator): rounded and packed first. */
template <bool B_KMAJOR, typename T, int BM, int BK, int BN, int WM, int BR, int BC>
__device__ __forceinline__ void mma_rs(const accum<BM, BK, WM, 1> &P, const smem_tile<T, BR, BC> &B,
                                       accum<BM, BN, WM, 1> &C)
{
    packed_a<accum<BM, BK, WM, 1>, T> a;
    a.pack(P);
    mma_rs<B_KMAJOR>(a, B, C);
}

/* A 1-D shared tile: L elements, unswizzled. */
template <typename T, int L> struct smem_vec {
    static constexpr int rows = 1, cols = L;
    static constexpr int bytes = L * (int)sizeof(T);
    T *ptr;
    __device__ T &operator()(int, int c) const { return ptr[c]; }
};

/* The N float registers a thread holds of a 1-D fragment. */
template <int N> struct frag_regs {
    static constexpr int SLOTS = N;
    float v[N];
    __device__ __forceinline__ void clear()
    {
#pragma unroll
        for (int s = 0; s < N; s++)
            v[s] = 0.0f;
    }
};

/* A 1-D fragment: element i in register i / THREADS of thread i % THREADS. */
template <int L, int THREADS> struct vec_frag : frag_regs<(L + THREADS - 1) / THREADS> {
    template <typename F> __device__ __forceinline__ void for_each(F f)
    {
#pragma unroll
        for (int s = 0; s < this->SLOTS; s++) {
            const int i = (int)threadIdx.x + s * THREADS;
            if (L % THREADS == 0 || i < L)
                f(this->v[s], 0, i);
        }
    }
};

/* A 1-D fragment of one value per row of a 2-D fragment of type Acc
 * (tile80::accum, tile90::accum or tile80::strips): each thread holds the
 * rows its elements sit in, v[s] for row Acc::slot_row(s), the same value
 * in the Acc::ROW_LANES threads (a quad of the accumulators) that share the
 * row. Fragments whose
 * accumulators have the same rows and warps (any columns) have the same
 * slots: rows_of<Acc> names them by their rows only. */
template <typename Acc> struct rows_frag : frag_regs<Acc::ROW_SLOTS> {
    static constexpr int COUNT = Acc::ROW_SLOTS;
    static __device__ __forceinline__ int index_of(int s) { return Acc::slot_row(s); }
    /* f(value, 0, row): every thread, for its rows (clear, fill, loads). */
    template <typename F> __device__ __forceinline__ void for_each(F f)
    {
#pragma unroll
        for (int s = 0; s < COUNT; s++)
            f(this->v[s], 0, index_of(s));
    }
    /* The same on one thread of each row's lanes (of the first warp across, where
     * warps sit side by side): stores write each row once. */
    template <typename F> __device__ __forceinline__ void for_each_owned(F f)
    {
        if ((threadIdx.x & (Acc::ROW_LANES - 1)) == 0 && Acc::warp_n() == 0)
            for_each(f);
    }
};

/* tile_reduce_*(src, dst, 1, clear): each row of src combined (of |x| with
 * ABS) into dst, from the identity when clear is nonzero, else from dst's
 * value; OP is TILE_RED_MAX, _MIN or _SUM, combined as tile_combine does
 * (max and min as fmaxf and fminf: a NaN gives way, as in tile.h's CPU
 * version). A thread combines its elements of each row, then the lanes
 * that share the row (a quad of an accumulator, up to a warp of strips)
 * combine by shuffles; where warps sit side by side over the rows
 * (WARP_COLS > 1: a fragment of few rows), each warp's partial goes through shared
 * memory and every warp combines them in warp order, between two barriers
 * of the block (every thread of which runs this). Sums are in a tree
 * order, not the CPU's left to right. dst: any rows_frag with Acc's rows,
 * of element type TD: what is written rounds to TD, once, as tile.h's
 * conversion of the float result does. */
template <int OP, bool ABS, typename TD = float, typename Acc>
__device__ __forceinline__ void reduce_rows(const Acc &src, frag_regs<Acc::ROW_SLOTS> &dst, bool clear)
{
    float part[Acc::ROW_SLOTS];
#pragma unroll
    for (int s = 0; s < Acc::ROW_SLOTS; s++)
        part[s] = tile_identity<OP, float>();
#pragma unroll
    for (int e = 0; e < Acc::COUNT; e++) {
        const int s = Acc::row_slot(e);
        part[s] = tile_combine<OP>(part[s], ABS ? fabsf(src.v[e]) : src.v[e]);
    }
#pragma unroll
    for (int s = 0; s < Acc::ROW_SLOTS; s++)
#pragma unroll
        for (int mask = 1; mask < Acc::ROW_LANES; mask <<= 1)
            part[s] = tile_combine<OP>(part[s], tile_shfl_xor(part[s], mask));
    if constexpr (Acc::WARP_COLS > 1) {
        /* [row][warp across]; the barrier before the writes waits for the
         * readers of the previous reduction of this shape */
        __shared__ float across[Acc::BM][Acc::WARP_COLS];
        __syncthreads();
        if ((threadIdx.x & (Acc::ROW_LANES - 1)) == 0)
#pragma unroll
            for (int s = 0; s < Acc::ROW_SLOTS; s++)
                across[Acc::slot_row(s)][Acc::warp_n()] = part[s];
        __syncthreads();
#pragma unroll
        for (int s = 0; s < Acc::ROW_SLOTS; s++) {
            float all = across[Acc::slot_row(s)][0];
#pragma unroll
            for (int w = 1; w < Acc::WARP_COLS; w++)
                all = tile_combine<OP>(all, across[Acc::slot_row(s)][w]);
            part[s] = all;
        }
    }
#pragma unroll
    for (int s = 0; s < Acc::ROW_SLOTS; s++)
        dst.v[s] = (float)(TD)(clear ? part[s] : tile_combine<OP>(dst.v[s], part[s]));
}

/* A 1-D fragment of one value per column of a 2-D fragment of type Acc:
 * each thread holds the columns its elements sit in, v[s] for column
 * Acc::slot_col(s), the same value in every thread that holds the column
 * (the lanes of one l % ROW_LANES, in each warp stacked over the rows). */
template <typename Acc> struct cols_frag : frag_regs<Acc::COL_SLOTS> {
    static constexpr int COUNT = Acc::COL_SLOTS;
    static __device__ __forceinline__ int index_of(int s) { return Acc::slot_col(s); }
    template <typename F> __device__ __forceinline__ void for_each(F f)
    {
#pragma unroll
        for (int s = 0; s < COUNT; s++)
            f(this->v[s], 0, index_of(s));
    }
    /* On the threads of the first row of lanes of the first warp down: a
     * store writes each column once. */
    template <typename F> __device__ __forceinline__ void for_each_owned(F f)
    {
        if ((int)(threadIdx.x & 31) < Acc::ROW_LANES && Acc::col_warp() == 0)
            for_each(f);
    }
};

/* tile_reduce_*(src, dst, 0, clear): each column of src combined into dst,
 * as reduce_rows does rows. A thread combines its elements of each column,
 * the lanes that share the column combine by shuffles (lanes ROW_LANES,
 * 2 ROW_LANES, ... apart), and where several warps are stacked over the
 * rows (COL_WARPS > 1) their partials go through `scratch` (COL_WARPS x BN
 * floats a region, Acc::col_scratch picks this thread's) between two of
 * Acc::cols_sync's barriers, combined in warp order by every thread. Sums
 * are in a tree order, not the CPU's top to bottom. What is written rounds
 * to TD, dst's element type. */
template <int OP, bool ABS, typename TD = float, typename Acc>
__device__ __forceinline__ void reduce_cols(const Acc &src, frag_regs<Acc::COL_SLOTS> &dst, bool clear, float *scratch)
{
    float part[Acc::COL_SLOTS];
#pragma unroll
    for (int s = 0; s < Acc::COL_SLOTS; s++)
        part[s] = tile_identity<OP, float>();
#pragma unroll
    for (int e = 0; e < Acc::COUNT; e++) {
        const int s = Acc::col_slot(e);
        part[s] = tile_combine<OP>(part[s], ABS ? fabsf(src.v[e]) : src.v[e]);
    }
#pragma unroll
    for (int s = 0; s < Acc::COL_SLOTS; s++)
#pragma unroll
        for (int mask = Acc::ROW_LANES; mask < 32; mask <<= 1)
            part[s] = tile_combine<OP>(part[s], tile_shfl_xor(part[s], mask));
    if constexpr (Acc::COL_WARPS > 1) {
        float *const across = Acc::col_scratch(scratch); /* [warp down][column] */
        Acc::cols_sync(); /* the readers of the previous reduction are done */
        if ((int)(threadIdx.x & 31) < Acc::ROW_LANES)
#pragma unroll
            for (int s = 0; s < Acc::COL_SLOTS; s++)
                across[Acc::col_warp() * Acc::BN + Acc::slot_col(s)] = part[s];
        Acc::cols_sync();
#pragma unroll
        for (int s = 0; s < Acc::COL_SLOTS; s++) {
            float all = across[Acc::slot_col(s)];
#pragma unroll
            for (int w = 1; w < Acc::COL_WARPS; w++)
                all = tile_combine<OP>(all, across[w * Acc::BN + Acc::slot_col(s)]);
            part[s] = all;
        }
    }
#pragma unroll
    for (int s = 0; s < Acc::COL_SLOTS; s++)
        dst.v[s] = (float)(TD)(clear ? part[s] : tile_combine<OP>(dst.v[s], part[s]));
}

/* tile_reduce_*(src, dst, DIM, clear) of a 2-D shared tile (smem_tile):
 * dst[e] combines row e (DIM 1) or column e (DIM 0) of src, of |x| with
 * ABS, from the identity when clear is nonzero, else from dst[e]. One
 * thread takes each element of dst and combines its row or column in index
 * order, as tile.h's CPU version does: the same float operations in the
 * same order, so the same bits. dst: a 1-D fragment spread over the block
 * (vec_frag, whose element e this very thread holds), written rounded to
 * TD; or a 1-D shared tile (smem_vec). The caller puts the barriers. */
namespace detail
{
template <int OP, bool ABS, int DIM, typename Tile> __device__ __forceinline__ float reduce_line(const Tile &src, int e, float acc)
{
    constexpr int LEN = DIM == 1 ? Tile::cols : Tile::rows;
    for (int k = 0; k < LEN; k++) {
        const float x = (float)(DIM == 1 ? src(e, k) : src(k, e));
        acc = tile_combine<OP>(acc, ABS ? fabsf(x) : x);
    }
    return acc;
}
} // namespace detail

template <int OP, bool ABS, int DIM, typename TD, int THREADS, typename Tile, int L>
__device__ __forceinline__ void reduce_shared(const Tile &src, vec_frag<L, THREADS> &dst, bool clear)
{
    static_assert(L == (DIM == 1 ? Tile::rows : Tile::cols), "tile80::reduce_shared: dst has one value a line");
#pragma unroll
    for (int s = 0; s < vec_frag<L, THREADS>::SLOTS; s++) {
        const int e = (int)threadIdx.x + s * THREADS;
        if (L % THREADS == 0 || e < L)
            dst.v[s] = (float)(TD)detail::reduce_line<OP, ABS, DIM>(src, e, clear ? tile_identity<OP, float>() : dst.v[s]);
    }
}

template <int OP, bool ABS, int DIM, typename TD, int THREADS, typename Tile, typename T, int L>
__device__ __forceinline__ void reduce_shared(const Tile &src, const smem_vec<T, L> &dst, bool clear)
{
    static_assert(L == (DIM == 1 ? Tile::rows : Tile::cols), "tile80::reduce_shared: dst has one value a line");
    for (int e = (int)threadIdx.x; e < L; e += THREADS)
        dst.ptr[e] = (T)detail::reduce_line<OP, ABS, DIM>(src, e, clear ? tile_identity<OP, float>() : (float)dst.ptr[e]);
}

/* tile_reduce_*(src, dst, DIM, clear) of a 2-D fragment (Acc) into a 1-D
 * shared tile: the fragment's rows (DIM 1) or columns (DIM 0) reduced in
 * registers as reduce_rows and reduce_cols do, then each line's owner
 * (one thread a row or column) combines it with dst's old value where
 * clear is zero and writes it, rounded to T. The caller puts the barriers
 * around it. */
template <int OP, bool ABS, int DIM, typename Acc, typename T, int L>
__device__ __forceinline__ void reduce_into_shared(const Acc &src, const smem_vec<T, L> &dst, bool clear, float *scratch)
{
    static_assert(L == (DIM == 1 ? Acc::BM : Acc::BN), "tile80::reduce_into_shared: dst has one value a line");
    const auto put = [&](float &v, int, int e) {
        dst.ptr[e] = (T)(clear ? v : tile_combine<OP>((float)dst.ptr[e], v));
    };
    if constexpr (DIM == 1) {
        rows_frag<Acc> line;
        reduce_rows<OP, ABS>(src, line, true);
        line.for_each_owned(put);
    } else {
        cols_frag<Acc> line;
        reduce_cols<OP, ABS>(src, line, true, scratch);
        line.for_each_owned(put);
    }
}

/* Every element of a shared tile (smem_tile or smem_vec), spread over the
 * block's THREADS threads. The caller puts the barriers around it. */
template <int THREADS, typename Tile, typename F> __device__ __forceinline__ void for_each_shared(const Tile &t, F f)
{
    constexpr int N = Tile::rows * Tile::cols;
    for (int e = (int)threadIdx.x; e < N; e += THREADS)
        f(t(e / Tile::cols, e % Tile::cols), e / Tile::cols, e % Tile::cols);
}

/* Element (r0 + r, c0 + c) of the rows x cols row-major matrix m (leading
 * dimension ld), converted to TO; 0 outside the matrix (also before row or
 * column 0: a window may start there). */
template <typename TO, typename T>
__device__ __forceinline__ TO read_or_zero(const T *m, long long ld, long long r, long long c, long long rows,
                                           long long cols)
{
    return r >= 0 && r < rows && c >= 0 && c < cols ? (TO)m[r * ld + c] : (TO)0;
}

/* Writes v, converted, to element (r, c) if it lies inside the matrix. */
template <typename T, typename V>
__device__ __forceinline__ void write_inside(T *m, long long ld, long long r, long long c, long long rows,
                                             long long cols, V v)
{
    if (r >= 0 && r < rows && c >= 0 && c < cols)
        m[r * ld + c] = (T)v;
}

/* tile_load of a 2-D fragment: element (r, c) of its window at (r0, c0) of
 * the rows x cols matrix m, rounded to TF (the fragment's element type) and
 * held as a float; 0 outside the matrix (also before row or column 0). Any
 * layout: each thread reads its own elements. */
template <typename TF, typename Acc, typename T>
__device__ __forceinline__ void load(Acc &C, const T *m, long long ld, long long r0, long long c0, long long rows,
                                     long long cols)
{
    C.for_each([&](float &v, int r, int c) { v = (float)read_or_zero<TF>(m, ld, r0 + r, c0 + c, rows, cols); });
}

/* The same into strips: a strip that lies inside the matrix, on a chunk
 * boundary, in one load (all of them issued before any is used). */
template <typename TF, int BM, int BN, int WM, int WN, int VEC, int LC, typename T>
__device__ __forceinline__ void load(strips<BM, BN, WM, WN, VEC, LC> &C, const T *m, long long ld, long long r0,
                                     long long c0, long long rows, long long cols)
{
    typedef strips<BM, BN, WM, WN, VEC, LC> S;
    typedef detail::chunk<T, VEC> ch;
    const auto strip_at = [&](long long r, long long c) { /* the strip at (r, c), in one load */
        return *reinterpret_cast<const typename ch::type *>(m + r * ld + c);
    };
    const bool aligned = ch::aligned(m, ld, c0);
    if (aligned && r0 >= 0 && c0 >= 0 && r0 + BM <= rows && c0 + BN <= cols) {
        /* the whole window inside: every load issued before any is used */
        typename ch::type x[S::STRIPS];
#pragma unroll
        for (int k = 0; k < S::STRIPS; k++)
            x[k] = strip_at(r0 + S::strip_row(k), c0 + S::strip_col(k));
#pragma unroll
        for (int k = 0; k < S::STRIPS; k++)
            ch::template get<TF>(&C.v[k * VEC], x[k]);
        return;
    }
#pragma unroll
    for (int k = 0; k < S::STRIPS; k++) {
        const long long r = r0 + S::strip_row(k), c = c0 + S::strip_col(k);
        if (aligned && r >= 0 && r < rows && c >= 0 && c + VEC <= cols) {
            ch::template get<TF>(&C.v[k * VEC], strip_at(r, c));
            continue;
        }
#pragma unroll
        for (int e = 0; e < VEC; e++)
            C.v[k * VEC + e] = (float)read_or_zero<TF>(m, ld, r, c + e, rows, cols);
    }
}

/* ---- grid rasterization ----
 * Block `id` of a 1-D grid of tiles_m * tiles_n blocks -> its tile (m, n).
 * Blocks walk down panels of `panel` tile-rows, one tile-column of the panel
 * after another, so the blocks running at one time share A's rows and B's
 * columns in L2. panel <= 1 is plain row-major order. */
struct tile_coord {
    int m, n;
};

__device__ __forceinline__ tile_coord raster(int tiles_m, int tiles_n, int panel, int id)
{
    if (panel <= 1)
        return tile_coord{id / tiles_n, id % tiles_n};
    const int per_panel = panel * tiles_n;
    const int p = id / per_panel, first = p * panel;
    const int height = tiles_m - first < panel ? tiles_m - first : panel;
    const int r = id - p * per_panel;
    return tile_coord{first + r % height, r / height};
}

} // namespace tile80

#endif /* TILEPP_TILE_MMA_SM80_CUH */
