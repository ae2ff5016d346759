/* tile_mma_sm90.cuh — tensor-core GEMM building blocks for the sm_90a path.
 *
 * The translator composes these into a warp-specialized GEMM: warpgroup 0 is
 * the producer, one of its threads issues the TMA copies of each pipeline
 * stage; warpgroups 1.. are the consumers, which multiply with wgmma and
 * hold the accumulators. Stages are handed over with mbarriers:
 *
 *   smem_tile   a tile in shared memory in the layout TMA writes and wgmma
 *               reads: column panels of SWIZZLE bytes per row, each panel
 *               rows x SWIZZLE bytes, 16-byte chunks XOR-swizzled by the row;
 *   make_tmap   (host) the tensor map of a global matrix, or of a 2-D slice
 *               of a higher-dimensional array, for one tile shape;
 *   tma_load    the copy of one tile (edges: TMA's zero fill) completing on
 *               a barrier;
 *   pipeline    full / empty barriers per stage, with the waits and the
 *               transaction counts of both sides;
 *   accum       the BM x BN fp32 accumulator of the consumer warpgroups, in
 *               wgmma's m64nN layout (the same per-thread pattern as
 *               tile80::accum, so tile80::store and for_each work on it);
 *   mma         C += A * B over one stage: wgmma m64nNk16 from two
 *               shared-memory descriptors, committed as one group;
 *   mma_rs      the same with A from registers: an earlier product's
 *               accumulator, rounded (FlashAttention's P V);
 *   store_tma   the epilogue: the accumulator through shared memory and
 *               TMA stores.
 *
 * The kernel these are made for (tests/mma/mma90_test.cu spells it out; the
 * blocks are persistent, each taking every gridDim.x-th tile, and both sides
 * walk the same tiles, so the producer runs ahead into the next tile while
 * the consumers store the last):
 *
 *   pipeline<S> P(barriers); P.init(consumer warps); __syncthreads();
 *   if (producer()) {
 *       producer_setmaxnreg<PRODUCER_REGS>();   (or 0 with consumer_regs 0)
 *       if (threadIdx.x == 0)
 *           for (each tile) for (k = 0; k < KT; k++) {
 *               s = P.produce(bytes); tma_load(A stage s ...); tma_load(B stage s ...);
 *           }
 *   } else {
 *       consumer_setmaxnreg<R>();
 *       for (each tile) {
 *           accum<...> C; C.clear();
 *           for (k = 0; k < KT; k++) { s = P.consume(); mma<...>(A stage s, B stage s, C); P.release(s); }
 *           P.drain();
 *           store_tma<TO>(staging, chunks, &map_C, r0, c0, C);   (or tile80::store from registers)
 *       }
 *       store_tma_finish();
 *   }
 *
 * TMA, mbarrier and the fences go through CCCL's cuda::ptx; wgmma and
 * setmaxnreg have no wrapper there, so they are inline PTX (the wgmma
 * shapes are generated: tile_wgmma_sm90.inc). Host code compiles for any
 * target; the device functions need sm_90a and are only instantiated from
 * code guarded by TILE90_DEVICE. */
#ifndef TILEPP_TILE_MMA_SM90_CUH
#define TILEPP_TILE_MMA_SM90_CUH

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda/ptx>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tile_mma_sm80.cuh"

/* True in the device pass for sm_90a, the only target with wgmma. */
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define TILE90_DEVICE 1
#else
#define TILE90_DEVICE 0
#endif

namespace tile90
{

using tile80::element;

/* The swizzle (bytes per panel row: 128, 64 or 32) of a panel `elems`
 * elements wide; 0 if none fits. */
template <typename T> __host__ __device__ constexpr int swizzle_of(int elems)
{
    return elems * (int)sizeof(T) % 128 == 0 ? 128 : elems * (int)sizeof(T) % 64 == 0 ? 64
                                                 : elems * (int)sizeof(T) % 32 == 0 ? 32
                                                                                    : 0;
}

/* ---- shared-memory tiles ----
 * A ROWS x COLS row-major tile as COLS / PANEL_COLS panels; panel p holds
 * columns [p * PANEL_COLS, (p + 1) * PANEL_COLS) of every row, row r at byte
 * r * SWIZZLE of the panel. The panels must start 1024-byte aligned. */
template <typename T, int ROWS, int COLS, int SWIZZLE> struct smem_tile {
    static constexpr int rows = ROWS, cols = COLS, swizzle = SWIZZLE;
    static constexpr int PANEL_COLS = SWIZZLE / (int)sizeof(T);
    static constexpr int PANELS = COLS / PANEL_COLS;
    static constexpr int PANEL_BYTES = ROWS * SWIZZLE;
    static constexpr int BYTES = ROWS * COLS * (int)sizeof(T);
    static constexpr int BOX_ROWS = ROWS < 256 ? ROWS : 256; /* TMA boxes are at most 256 rows */
    static_assert(SWIZZLE == 128 || SWIZZLE == 64 || SWIZZLE == 32, "tile90::smem_tile: swizzle of 32, 64 or 128 bytes");
    static_assert(COLS % PANEL_COLS == 0, "tile90::smem_tile: whole panels");
    static_assert(ROWS % 8 == 0 && ROWS % BOX_ROWS == 0, "tile90::smem_tile: rows in whole swizzle atoms and boxes");
    T *ptr;
};

/* Slices of higher-dimensional arrays: the extents and element strides of
 * the subscripts before the two matrix dimensions, outermost first. */
struct lead_dims {
    int n;
    long long extent[3], stride[3];
};

/* ---- host: tensor maps ---- */

template <typename T> struct tmap_type;
template <> struct tmap_type<tile_half> {
    static constexpr CUtensorMapDataType value = CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
};
template <> struct tmap_type<tile_bfloat16> {
    static constexpr CUtensorMapDataType value = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
};
template <> struct tmap_type<float> {
    static constexpr CUtensorMapDataType value = CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
};

/* The driver's encoder, found once through the runtime (no -lcuda). */
static inline PFN_cuTensorMapEncodeTiled_v12000 tmap_encoder()
{
    static PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
        void *p = nullptr;
        cudaDriverEntryPointQueryResult q;
        if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q) !=
                cudaSuccess ||
            q != cudaDriverEntryPointSuccess)
            p = nullptr;
        return (PFN_cuTensorMapEncodeTiled_v12000)p;
    }();
    return fn;
}

/* The tensor map that copies `Tile`s out of the rows x cols matrix at `base`
 * (leading dimension ld elements; `lead`: the slice subscripts' extents and
 * strides). False where TMA cannot address it (alignment, strides, empty
 * extents): the caller falls back to another path. */
template <typename Tile, typename T>
static inline bool encode_tmap(CUtensorMap *map, const T *base, long long rows, long long cols, long long ld,
                               lead_dims lead)
{
    constexpr long long esize = (long long)sizeof(T);
    PFN_cuTensorMapEncodeTiled_v12000 encode = tmap_encoder();
    /* coordinates are 32-bit: keep every tile origin representable */
    constexpr long long coord_limit = 0x7fffffffLL - 65536;
    if (!encode || rows <= 0 || cols <= 0 || rows > coord_limit || cols > coord_limit || ld < cols ||
        ((uintptr_t)base & 15) != 0 || ld * esize % 16 != 0 || lead.n < 0 || lead.n > 3)
        return false;
    cuuint64_t dims[5], strides[4];
    cuuint32_t box[5], estrides[5] = {1, 1, 1, 1, 1};
    dims[0] = (cuuint64_t)cols;
    dims[1] = (cuuint64_t)rows;
    strides[0] = (cuuint64_t)(ld * esize);
    box[0] = (cuuint32_t)Tile::PANEL_COLS;
    box[1] = (cuuint32_t)Tile::BOX_ROWS;
    for (int i = 0; i < lead.n; i++) { /* innermost subscript first */
        const int d = lead.n - 1 - i;
        if (lead.extent[d] <= 0 || lead.extent[d] > coord_limit || lead.stride[d] * esize % 16 != 0)
            return false;
        dims[2 + i] = (cuuint64_t)lead.extent[d];
        strides[1 + i] = (cuuint64_t)(lead.stride[d] * esize);
        box[2 + i] = 1;
    }
    const CUtensorMapSwizzle swizzle = Tile::swizzle == 128  ? CU_TENSOR_MAP_SWIZZLE_128B
                                       : Tile::swizzle == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
                                                             : CU_TENSOR_MAP_SWIZZLE_32B;
    return encode(map, tmap_type<T>::value, (cuuint32_t)(2 + lead.n), (void *)base, dims, strides, box, estrides,
                  CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

/* What a tensor map is made from (a map holds no device state: the same
 * arguments give the same map on any device). */
struct tmap_key {
    const void *base;
    long long rows, cols, ld;
    lead_dims lead;
    bool operator==(const tmap_key &o) const
    {
        if (base != o.base || rows != o.rows || cols != o.cols || ld != o.ld || lead.n != o.lead.n)
            return false;
        for (int i = 0; i < lead.n; i++)
            if (lead.extent[i] != o.lead.extent[i] || lead.stride[i] != o.lead.stride[i])
                return false;
        return true;
    }
};
struct tmap_value {
    bool ok;
    CUtensorMap map;
};

/* encode_tmap, remembered per tile shape and host thread: back-to-back calls
 * on the same buffers reuse their maps; any changed pointer or extent is a
 * different key, so a stale map is never served. */
template <typename Tile, typename T>
static inline bool make_tmap(CUtensorMap *map, const T *base, long long rows, long long cols, long long ld,
                             lead_dims lead = lead_dims{0, {0, 0, 0}, {0, 0, 0}})
{
    static thread_local tile_memo<tmap_key, tmap_value> made;
    const tmap_key key = {base, rows, cols, ld, lead};
    if (const tmap_value *v = made.find(key)) {
        *map = v->map;
        return v->ok;
    }
    tmap_value v;
    v.ok = encode_tmap<Tile>(&v.map, base, rows, cols, ld, lead);
    made.put(key, v);
    *map = v.map;
    return v.ok;
}

/* Whether `kernel` was built for sm_90a (and the current device runs it):
 * the sm_90a kernels are empty in every other device pass. */
template <typename Kernel> static inline bool has_sm90a_code(Kernel kernel)
{
    cudaFuncAttributes attr;
    return cudaFuncGetAttributes(&attr, (const void *)kernel) == cudaSuccess && attr.ptxVersion >= 90 &&
           attr.binaryVersion == 90;
}

/* The same, asked once per kernel and device (the answer is the current
 * device's: a host with an A100 and an H100 gets both right). */
template <auto Kernel> static inline bool has_sm90a(const tile_device *d)
{
    static std::atomic<signed char> known[TILE_MAX_DEVICES]; /* 0 not asked, 1 yes, -1 no */
    if (d->id < 0 || d->id >= TILE_MAX_DEVICES)
        return has_sm90a_code(Kernel);
    signed char v = known[d->id].load(std::memory_order_relaxed);
    if (v == 0) {
        v = has_sm90a_code(Kernel) ? 1 : -1;
        known[d->id].store(v, std::memory_order_relaxed);
    }
    return v > 0;
}

/* TILEPP_PATH picks the code path of grids that have an sm_90a variant:
 * unset or "auto": sm_90a where the device and the operands allow it;
 * "sm80": always the sm_80 kernels; "sm90": the sm_90a variant or, where it
 * cannot run, cudaErrorNotSupported from the launcher (for tests that must
 * know which path ran). */
enum path_choice { PATH_AUTO, PATH_SM80, PATH_SM90 };
static inline path_choice read_path_env()
{
    const char *v = getenv("TILEPP_PATH");
    if (v && strcmp(v, "sm80") == 0)
        return PATH_SM80;
    if (v && strcmp(v, "sm90") == 0)
        return PATH_SM90;
    return PATH_AUTO;
}

/* TILEPP_PATH as it was at the first launch (read once per process). */
static inline path_choice path_from_env()
{
    static const path_choice choice = read_path_env();
    return choice;
}

/* Whether the device is a compute capability 9.0 one. */
static inline bool device_is_sm90(const tile_device *d) { return d->major == 9 && d->minor == 0; }

/* TILEPP_SCHEDULE picks how the blocks of a persistent kernel whose
 * iterations differ in work (lowering's Sm90Plan.dynamic) share them:
 * unset or "dynamic": each block takes the next iteration from a counter
 * when it finishes one; "static": every gridDim.x-th iteration, as the
 * other persistent kernels do. Read at each launch (a getenv), so that a
 * benchmark can time the two in turns in one process. */
static inline bool static_schedule_from_env()
{
    const char *v = getenv("TILEPP_SCHEDULE");
    return v && strcmp(v, "static") == 0;
}

/* Counters kept from launch to launch, one for each stream a host thread
 * launches on (up to STREAM_COUNTERS, on any devices): allocated and zeroed
 * at the stream's first launch. A launch's last fetch zeroes its counter
 * again (next_tile), and the next launch on the stream starts after it
 * completes, so it finds zero: a launch costs no allocation and no memset.
 * (Allocated in stream order at each launch, from a pool that gives memory
 * back at every synchronization, the counter cost some 60 us a launch on
 * the H200: half the time of an 8 x 16 x 1024 FlashAttention.) */
enum { STREAM_COUNTERS = 16 };
struct stream_key {
    int device;
    cudaStream_t stream;
    bool operator==(const stream_key &o) const { return device == o.device && stream == o.stream; }
};
struct stream_counters : tile_memo<stream_key, unsigned long long *, STREAM_COUNTERS> {
    ~stream_counters()
    {
        for (int i = 0; i < used; i++)
            (void)cudaFree(values[i]);
    }
};

/* The kept counter of stream s on device d, or NULL where there is none to
 * use: the stream is being captured into a graph (whose launches may run
 * beside the stream's own later on), or the thread has its STREAM_COUNTERS
 * already (never one forgotten, as a full memo would: a launch may still
 * be using it), or CUDA refuses the memory. */
static inline unsigned long long *kept_counter(const tile_device *d, cudaStream_t s)
{
    static thread_local stream_counters kept;
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    if (cudaStreamIsCapturing(s, &capture) != cudaSuccess || capture != cudaStreamCaptureStatusNone)
        return nullptr;
    const stream_key key = {d->id, s};
    if (unsigned long long *const *known = kept.find(key))
        return *known;
    unsigned long long *counter = nullptr;
    if (kept.used == STREAM_COUNTERS)
        return nullptr;
    if (cudaMalloc((void **)&counter, sizeof *counter) != cudaSuccess ||
        cudaMemsetAsync(counter, 0, sizeof *counter, s) != cudaSuccess) {
        (void)cudaFree(counter);
        (void)cudaGetLastError(); /* the launch goes on without: not its error */
        return nullptr;
    }
    kept.put(key, counter);
    return counter;
}

/* The counter a dynamically scheduled launch hands out iterations from:
 * the stream's kept counter, or else device memory of its own, zeroed in
 * stream order before the launch and freed after it. ptr stays NULL, and
 * the kernel takes every gridDim.x-th iteration, without `needed` (every
 * block has one iteration, or none) and with TILEPP_SCHEDULE=static. */
struct iter_counter {
    tile_stream_array<unsigned long long> own;
    unsigned long long *ptr = nullptr;
    cudaError_t init(const tile_device *d, cudaStream_t s, bool needed)
    {
        if (!needed || static_schedule_from_env())
            return cudaSuccess;
        ptr = kept_counter(d, s);
        if (ptr)
            return cudaSuccess;
        cudaError_t err = own.alloc(s, 1);
        if (err == cudaSuccess)
            err = cudaMemsetAsync(own.ptr, 0, sizeof *own.ptr, s);
        ptr = own.ptr;
        return err;
    }
};

/* The grid of a persistent kernel: as many blocks as fit on the device at
 * once (each block takes every gridDim.x-th tile), fewer when there are
 * fewer tiles. */
template <typename Kernel>
static inline cudaError_t persistent_blocks(const tile_device *d, Kernel kernel, int threads, long long smem,
                                            long long tiles, long long *grid)
{
    int per_sm = 0;
    cudaError_t err = tile_blocks_per_sm(d, kernel, threads, smem, &per_sm);
    if (err == cudaSuccess) {
        const long long fit = (long long)d->sms * (per_sm > 0 ? per_sm : 1);
        *grid = tiles < fit ? tiles : fit;
    }
    return err;
}

/* Registers a producer thread keeps after setmaxnreg, and those per
 * consumer thread then: the most that fits 64K with the producer at
 * PRODUCER_REGS, in the steps of 8 setmaxnreg takes. 0: leave the
 * allocation as launched (one consumer warpgroup already has the maximum).
 * (The translator chooses its kernels' own, lower_sm90.c, the producer
 * down to 24 when the consumers need it.) */
constexpr int PRODUCER_REGS = 40;
__host__ __device__ constexpr int consumer_regs(int consumer_groups)
{
    return consumer_groups < 2 ? 0 : ((65536 - 128 * PRODUCER_REGS) / (128 * consumer_groups) / 8 * 8 > 240 ? 240 : (65536 - 128 * PRODUCER_REGS) / (128 * consumer_groups) / 8 * 8);
}

#if defined(__CUDACC__)

/* Dynamic shared memory rounded up to 1024 bytes (the 128-byte swizzle
 * repeats every 1024): launchers ask for 1024 bytes more. */
__device__ __forceinline__ unsigned char *align_smem(unsigned char *p)
{
    const uint32_t a = (uint32_t)__cvta_generic_to_shared(p);
    return p + ((1024 - (a & 1023)) & 1023);
}

/* Warpgroup 0 is the producer. */
__device__ __forceinline__ bool producer() { return threadIdx.x < 128; }
/* A consumer's warpgroup, 0 for threads 128..255, as a warp-uniform value. */
__device__ __forceinline__ int consumer_group() { return __shfl_sync(0xffffffffu, (int)(threadIdx.x >> 7) - 1, 0); }

/* Named barriers: 1 + g for consumer warpgroup g alone (group_sync), and
 * CONSUMERS_BARRIER for the first `groups` consumer warpgroups together
 * (never barrier 0, which would wait for the producer too). */
constexpr int CONSUMERS_BARRIER = 8;
__device__ __forceinline__ void group_sync(int group)
{
    asm volatile("bar.sync %0, 128;\n" ::"r"(group + 1) : "memory");
}
__device__ __forceinline__ void consumers_sync(int groups)
{
    asm volatile("bar.sync %0, %1;\n" ::"n"(CONSUMERS_BARRIER), "r"(128 * groups) : "memory");
}

/* setmaxnreg to REGS registers a thread, the producer's (down) and the
 * consumers' (up); REGS 0: none. */
template <int REGS> __device__ __forceinline__ void producer_setmaxnreg()
{
#if TILE90_DEVICE
    if constexpr (REGS > 0)
        asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(REGS) : "memory");
#endif
}
template <int REGS> __device__ __forceinline__ void consumer_setmaxnreg()
{
#if TILE90_DEVICE
    if constexpr (REGS > 0)
        asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(REGS) : "memory");
#endif
}

namespace ptx
{
#include "tile_wgmma_sm90.inc"

__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
/* Pins the accumulators in place around the asynchronous products, so that
 * the compiler moves none of them while a wgmma group is in flight (which
 * would make ptxas serialize the wgmmas, warning C7515). */
template <int COUNT> __device__ __forceinline__ void fence_operands(float (&v)[COUNT])
{
#pragma unroll
    for (int i = 0; i < COUNT; i++)
        asm volatile("" : "+f"(v[i])::"memory");
}
template <int COUNT> __device__ __forceinline__ void fence_operands(uint32_t (&v)[COUNT])
{
#pragma unroll
    for (int i = 0; i < COUNT; i++)
        asm volatile("" : "+r"(v[i])::"memory");
}
/* Ends the basic block before a wgmma wait, so that the work above stays
 * above it: ptxas's scheduler issues a wait as early as its block allows,
 * and would otherwise run fragment work written to overlap the products in
 * flight after them. The block ends with a loop ptxas cannot remove (it
 * iterates while `never_negative` is below 0, which it is not: the
 * iteration count of the loop around). */
__device__ __forceinline__ void hold_wait(long long never_negative)
{
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 ".reg .b64 c;\n"
                 "mov.b64 c, %0;\n"
                 "TILE_HOLD_%=:\n"
                 "setp.ge.s64 p, c, 0;\n"
                 "@p bra.uni TILE_HELD_%=;\n"
                 "nanosleep.u32 0;\n"
                 "add.s64 c, c, 1;\n"
                 "bra.uni TILE_HOLD_%=;\n"
                 "TILE_HELD_%=:\n"
                 "}\n" ::"l"(never_negative)
                 : "memory");
}
template <int N> __device__ __forceinline__ void wgmma_wait()
{
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

/* A wgmma shared-memory matrix descriptor: start address, leading and
 * stride byte offsets (16-byte units), swizzle mode; the tile's base address
 * and a byte offset into it (a multiple of 16) apart. The start field is
 * (address & 0x3FFFF) >> 4, and a block's shared addresses lie below 2^18
 * (228 KB), so the offset's 16-byte units add to the base's: written as
 * sums, the fields of one tile's descriptors fold into one constant added to
 * a value computed once a stage, and each product's descriptor costs one
 * add (built field by field, masked and shifted, it cost six uniform
 * instructions: a tenth of a FlashAttention step's at head dim 64). */
__device__ __forceinline__ uint64_t desc(uint32_t base, uint32_t offset, uint32_t lbo, uint32_t sbo, int swizzle)
{
    const uint32_t mode = swizzle == 128 ? 1u : swizzle == 64 ? 2u : 3u;
    const uint32_t lo = ((base & 0x3FFFF) >> 4) + (offset >> 4) + (((lbo >> 4) & 0x3FFF) << 16);
    const uint32_t hi = ((sbo >> 4) & 0x3FFF) | mode << 30;
    return (uint64_t)hi << 32 | lo;
}
} // namespace ptx

/* The descriptor of the 16-deep slice at k of a K-major tile (rows: M or N,
 * columns: K), from row mn on. Swizzled K-major layouts need no leading
 * offset (1 by convention); 8-row groups are 8 panel rows apart. */
template <typename Tile> __device__ __forceinline__ uint64_t desc_kmajor(const Tile &t, int mn, int k)
{
    const uint32_t rows = (uint32_t)__cvta_generic_to_shared(t.ptr) + (uint32_t)(mn * Tile::swizzle);
    const uint32_t offset =
        (uint32_t)((k / Tile::PANEL_COLS) * Tile::PANEL_BYTES + (k % Tile::PANEL_COLS) * (int)sizeof(*t.ptr));
    return ptx::desc(rows, offset, 16, 8 * Tile::swizzle, Tile::swizzle);
}

/* The same for an MN-major tile (rows: K, columns: M or N): the next
 * PANEL_COLS of M or N are one panel on (leading offset), the next 8 rows of
 * K 8 panel rows on (stride offset). mn is a multiple of PANEL_COLS. */
template <typename Tile> __device__ __forceinline__ uint64_t desc_mnmajor(const Tile &t, int mn, int k)
{
    const uint32_t panel =
        (uint32_t)__cvta_generic_to_shared(t.ptr) + (uint32_t)((mn / Tile::PANEL_COLS) * Tile::PANEL_BYTES);
    return ptx::desc(panel, (uint32_t)(k * Tile::swizzle), Tile::PANEL_BYTES, 8 * Tile::swizzle, Tile::swizzle);
}

/* ---- TMA copies ----
 * The tile at (r0, c0) of the map's matrix (slice `lead...`, outermost
 * subscript first), completing on `bar`. Coordinates past the edges read
 * as zeros. Called by one thread. */
template <typename Tile, typename... Lead>
__device__ __forceinline__ void tma_load(const Tile &t, const CUtensorMap *map, uint64_t *bar, long long r0,
                                         long long c0, Lead... lead)
{
    constexpr int RANK = 2 + (int)sizeof...(Lead);
    static_assert(RANK <= 5, "tile90::tma_load: at most three slice subscripts");
    const long long outer[] = {(long long)lead..., 0};
#pragma unroll
    for (int rb = 0; rb < Tile::rows / Tile::BOX_ROWS; rb++)
#pragma unroll
        for (int p = 0; p < Tile::PANELS; p++) {
            int32_t coords[RANK];
            coords[0] = (int32_t)(c0 + p * Tile::PANEL_COLS);
            coords[1] = (int32_t)(r0 + rb * Tile::BOX_ROWS);
#pragma unroll
            for (int i = 2; i < RANK; i++)
                coords[i] = (int32_t)outer[RANK - 1 - i];
            unsigned char *dst = reinterpret_cast<unsigned char *>(t.ptr) + p * Tile::PANEL_BYTES +
                                 rb * Tile::BOX_ROWS * Tile::swizzle;
            cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, dst, map, coords, bar);
        }
}

/* ---- the stage hand-over ---- */

/* Barrier pairs of a hand-over between the producer thread and the
 * consumers (pipeline stages, the queue of iterations): for each of n
 * slots a full barrier (the producer's one arrival) at bars[s] and an empty
 * one (`releases` arrivals: one per consumer warp for the stages, one per
 * consumer thread for the queue) at bars[n + s]. Thread 0; the block
 * synchronises before first use. */
__device__ __forceinline__ void init_full_empty(uint64_t *bars, int n, int releases)
{
    if (threadIdx.x == 0) {
        for (int s = 0; s < n; s++) {
            cuda::ptx::mbarrier_init(bars + s, 1);
            cuda::ptx::mbarrier_init(bars + n + s, (uint32_t)releases);
        }
        cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
    }
}

/* Waits until the phase of `bar` with this parity has completed. */
__device__ __forceinline__ void wait_parity(uint64_t *bar, uint32_t parity)
{
    while (!cuda::ptx::mbarrier_try_wait_parity(bar, parity))
        ;
}

/* The pipeline's stages: full[s], the producer's expected bytes have
 * landed in stage s; empty[s], every consumer warp is done reading it. Each
 * side walks the stages in order, flipping its phase bit at each wrap. */
template <int STAGES> struct pipeline {
    uint64_t *bars; /* full[0..STAGES), empty[0..STAGES) */
    int stage = 0;
    uint32_t phase = 0;
    int last = -1; /* consumers: the stage whose wgmma group is still in flight */

    __device__ __forceinline__ uint64_t *full(int s) const { return bars + s; }
    __device__ __forceinline__ uint64_t *empty(int s) const { return bars + STAGES + s; }

    /* Thread 0; the block synchronises before first use. */
    __device__ __forceinline__ void init(int consumer_warps) const { init_full_empty(bars, STAGES, consumer_warps); }
    static __device__ __forceinline__ void wait(uint64_t *bar, uint32_t parity) { wait_parity(bar, parity); }
    __device__ __forceinline__ void advance()
    {
        if (++stage == STAGES) {
            stage = 0;
            phase ^= 1;
        }
    }

    /* Producer: waits until the next stage is free, announces `bytes` of
     * copies on its full barrier; returns the stage to copy into. */
    __device__ __forceinline__ int produce(uint32_t bytes)
    {
        const int s = stage;
        wait(empty(s), phase ^ 1);
        cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared,
                                             full(s), bytes);
        advance();
        return s;
    }

    /* A ping-pong consumer, at the other consumer's tile: the `count`
     * stages that tile takes (none if count <= 0) pass without waiting. */
    __device__ __forceinline__ void skip(long long count)
    {
        if (count <= 0)
            return;
        const long long at = stage + count;
        phase ^= (uint32_t)((at / STAGES) & 1);
        stage = (int)(at % STAGES);
    }

    /* Consumer: waits until the next stage has landed; returns it. */
    __device__ __forceinline__ int consume()
    {
        const int s = stage;
        wait(full(s), phase);
        advance();
        return s;
    }
    /* Consumer, after issuing the products of stage s: keeps that group in
     * flight and hands back the stage before it, whose group is complete.
     * (With one stage there is nothing to overlap: wait, hand it back.) */
    __device__ __forceinline__ void release(int s)
    {
        if constexpr (STAGES == 1) {
            ptx::wgmma_wait<0>();
            if ((threadIdx.x & 31) == 0)
                cuda::ptx::mbarrier_arrive(empty(s));
        } else {
            ptx::wgmma_wait<1>();
            if (last >= 0 && (threadIdx.x & 31) == 0)
                cuda::ptx::mbarrier_arrive(empty(last));
            last = s;
        }
    }
    /* Consumer, after the loop: every product is in the accumulators and
     * the last stage goes back to the producer (which may be filling it for
     * the block's next tile). */
    __device__ __forceinline__ void drain()
    {
        ptx::wgmma_wait<0>();
        if (last >= 0 && (threadIdx.x & 31) == 0)
            cuda::ptx::mbarrier_arrive(empty(last));
        last = -1;
    }
    /* Consumer, when no product reads stage s any more (a tile loaded once
     * before a pipelined loop, after the loop's drain): hands it back. */
    __device__ __forceinline__ void give_back(int s)
    {
        if ((threadIdx.x & 31) == 0)
            cuda::ptx::mbarrier_arrive(empty(s));
    }
};

/* ---- ping-pong turns ----
 * Two consumer warpgroups that take the block's tiles in turn multiply one
 * at a time: warpgroup w waits on bars[w] before its tile's first stage
 * (warpgroup 0 not before its first tile) and, once each of its warps has
 * waited for its tile's last stage, hands the turn to the other with
 * bars[1 - w]. Besides keeping the tensor cores on one tile while the
 * other warpgroup runs its epilogue, this keeps the stage hand-over sound:
 * a warpgroup waits for the n-th fill of a stage only once the (n-1)-th,
 * which may have been the other's, has landed (a parity wait cannot tell
 * fill n from fill n - 2). */
struct turns {
    uint64_t *bars; /* bars[0], bars[1] */
    uint32_t phase = 0;
    bool first = true;

    /* Thread 0; the block synchronises before first use. */
    __device__ __forceinline__ void init() const
    {
        if (threadIdx.x == 0) {
            cuda::ptx::mbarrier_init(bars, 4); /* one arrival per warp of the other warpgroup */
            cuda::ptx::mbarrier_init(bars + 1, 4);
            cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
        }
    }
    __device__ __forceinline__ void wait(int mine)
    {
        const bool go = first && mine == 0;
        first = false;
        if (go)
            return;
        while (!cuda::ptx::mbarrier_try_wait_parity(bars + mine, phase))
            ;
        phase ^= 1;
    }
    __device__ __forceinline__ void pass(int mine) const
    {
        if ((threadIdx.x & 31) == 0)
            cuda::ptx::mbarrier_arrive(bars + (1 - mine));
    }
};

/* ---- accumulators ----
 * The BM x BN tile over WG_M x WG_N consumer warpgroups (threads 128.. of
 * the block); each holds a WTM x WTN piece as WTM / 64 wgmma results of
 * m64nWTN. Thread t of a warpgroup, warp w = t / 32, lane l: rows
 * 16 w + l / 4 (+ 8), columns 8 j + 2 (l % 4) (+ 1) of each result. */
template <int BM_, int BN_, int WG_M, int WG_N> struct accum {
    static constexpr int BM = BM_, BN = BN_;
    static constexpr int GROUPS = WG_M * WG_N;
    static constexpr int WTM = BM / WG_M, WTN = BN / WG_N;
    static_assert(BM % (64 * WG_M) == 0, "tile90::accum: 64-row pieces per warpgroup");
    static_assert(BN % WG_N == 0 && WTN % 16 == 0 && WTN <= 256, "tile90::accum: 16..256 columns per warpgroup");
    static constexpr int MI = WTM / 64, NI = WTN / 8;
    static constexpr int COUNT = MI * NI * 4;
    static constexpr int ROW_STEP = 64;
    static constexpr int WARP_COLS = WG_N; /* lowering gives rows fragments WG_N == 1 only */
    static constexpr int ROW_LANES = 4;    /* consecutive lanes sharing a row (a quad) */

    float v[COUNT];
    int m0, n0; /* this warpgroup's piece of the tile, computed once */

    __device__ __forceinline__ accum() : m0(group_m() * WTM), n0(group_n() * WTN) {}

    static __device__ __forceinline__ int thread() { return (int)threadIdx.x - 128; }
    /* The consumer warpgroup, as a warp-uniform value: the descriptors
     * computed from it then stay in uniform registers, which wgmma needs to
     * run back to back (else ptxas serializes them, warning C7515). */
    static __device__ __forceinline__ int group()
    {
        return GROUPS == 1 ? 0 : consumer_group();
    }
    static __device__ __forceinline__ int group_m() { return WG_M == 1 ? 0 : group() / WG_N; }
    static __device__ __forceinline__ int group_n() { return WG_N == 1 ? 0 : group() % WG_N; }
    /* The warpgroup without the shuffle, for the index arithmetic of rows,
     * columns and their owners, which may run where only some lanes do (a
     * shuffle of the whole warp there would never complete). */
    static __device__ __forceinline__ int lane_group() { return GROUPS == 1 ? 0 : (int)(threadIdx.x >> 7) - 1; }
    static __device__ __forceinline__ int lane_group_m() { return WG_M == 1 ? 0 : lane_group() / WG_N; }
    static __device__ __forceinline__ int lane_group_n() { return WG_N == 1 ? 0 : lane_group() % WG_N; }
    static __device__ __forceinline__ int warp_n() { return lane_group_n(); } /* as tile80::accum's */
    static __device__ __forceinline__ int row0()
    {
        return lane_group_m() * WTM + ((thread() >> 5) & 3) * 16 + (thread() & 31) / 4;
    }
    static __device__ __forceinline__ int col0() { return lane_group_n() * WTN + (thread() & 3) * 2; }
    /* Tile coordinates of v[i] in this thread (as for_each walks them). */
    __device__ __forceinline__ int row_of(int i) const
    {
        return m0 + ((thread() >> 5) & 3) * 16 + (thread() & 31) / 4 + (i / (NI * 4)) * ROW_STEP + ((i >> 1) & 1) * 8;
    }
    __device__ __forceinline__ int col_of(int i) const
    {
        return n0 + (thread() & 3) * 2 + ((i / 4) % NI) * 8 + (i & 1);
    }
    /* Row slots, as tile80::accum's (rows_frag). */
    static constexpr int ROW_SLOTS = MI * 2;
    static __device__ __forceinline__ int row_slot(int i) { return (i / (NI * 4)) * 2 + ((i >> 1) & 1); }
    static __device__ __forceinline__ int slot_row(int s) { return row0() + (s >> 1) * ROW_STEP + (s & 1) * 8; }
    /* Column slots, as tile80::accum's (cols_frag): a column's values sit in
     * the four warps of each warpgroup stacked over the rows. */
    static constexpr int COL_SLOTS = NI * 2;
    static constexpr int COL_WARPS = 4 * WG_M;
    static __device__ __forceinline__ int col_slot(int i) { return ((i / 4) % NI) * 2 + (i & 1); }
    static __device__ __forceinline__ int slot_col(int s) { return col0() + (s >> 1) * 8 + (s & 1); }
    static __device__ __forceinline__ int col_warp() { return lane_group_m() * 4 + ((thread() >> 5) & 3); }
    /* A column reduction's scratch and barriers: the consumers that share
     * the tile. One warpgroup holding it (alone, or ping-pong, when the
     * other holds another tile) uses region g of its own (COL_WARPS x BN
     * floats each) and its own barrier; warpgroups sharing it use region 0
     * and wait for each other. */
    static __device__ __forceinline__ float *col_scratch(float *scratch)
    {
        return GROUPS == 1 ? scratch + ((int)(threadIdx.x >> 7) - 1) * COL_WARPS * BN : scratch;
    }
    static __device__ __forceinline__ void cols_sync()
    {
        if constexpr (GROUPS == 1)
            group_sync(consumer_group());
        else
            consumers_sync(GROUPS);
    }

    __device__ __forceinline__ void clear()
    {
#pragma unroll
        for (int i = 0; i < COUNT; i++)
            v[i] = 0.0f;
    }
    template <typename F> __device__ __forceinline__ void for_each(F f) { tile80::detail::for_each(*this, f); }
};

/* C += A * B over one BK slice. A is BM x BK (A_KMAJOR) or BK x BM; B is
 * BN x BK (B_KMAJOR) or BK x BN. Issues the warpgroup's wgmmas as one group;
 * the caller waits for it (pipeline::release, drain). */
template <bool A_KMAJOR, bool B_KMAJOR, typename T, int BM, int BN, int BK, int WG_M, int WG_N, typename ATile,
          typename BTile>
__device__ __forceinline__ void mma(const ATile &A, const BTile &B, accum<BM, BN, WG_M, WG_N> &C)
{
    typedef accum<BM, BN, WG_M, WG_N> acc;
    static_assert(A_KMAJOR ? (ATile::rows == BM && ATile::cols == BK) : (ATile::rows == BK && ATile::cols == BM),
                  "tile90::mma: the A tile is BM x BK (A_KMAJOR) or BK x BM");
    static_assert(B_KMAJOR ? (BTile::rows == BN && BTile::cols == BK) : (BTile::rows == BK && BTile::cols == BN),
                  "tile90::mma: the B tile is BN x BK (B_KMAJOR) or BK x BN");
    static_assert(BK % 16 == 0, "tile90::mma: BK is a multiple of 16");
    static_assert(A_KMAJOR || 64 % ATile::PANEL_COLS == 0, "tile90::mma: A's panels split its 64-row pieces");
    static_assert(B_KMAJOR || acc::WTN % BTile::PANEL_COLS == 0, "tile90::mma: B's panels split the warpgroup tile");
    constexpr bool BF16 = element<T>::bf16;
#if TILE90_DEVICE
    const int m0 = C.m0, n0 = C.n0;
    ptx::fence_operands(C.v);
    ptx::wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < BK; kk += 16) {
        const uint64_t db = B_KMAJOR ? desc_kmajor(B, n0, kk) : desc_mnmajor(B, n0, kk);
#pragma unroll
        for (int mi = 0; mi < acc::MI; mi++) {
            const uint64_t da = A_KMAJOR ? desc_kmajor(A, m0 + mi * 64, kk) : desc_mnmajor(A, m0 + mi * 64, kk);
            ptx::wgmma_ss<acc::WTN, BF16, A_KMAJOR ? 0 : 1, B_KMAJOR ? 0 : 1>::run(&C.v[mi * acc::NI * 4], da, db, 1);
        }
    }
    ptx::wgmma_commit();
    ptx::fence_operands(C.v);
#else
    (void)A, (void)B, (void)C, (void)BF16;
#endif
}

/* C += P * B with the A operand from registers: P, the BM x BK operand of
 * an earlier product's layout packed as wgmma reads it (tile80::packed_a:
 * FlashAttention's probabilities P = softmax(Q K^T), rounded to T); B is
 * BN x BK (B_KMAJOR) or BK x BN in shared memory. The m64nN result layout
 * and wgmma's A-from-registers layout share their rows and column pairs,
 * so P's values feed the product where they are, without a trip through
 * shared memory. Every consumer warpgroup holds whole rows of P and C
 * (WG_N = 1). */
template <bool B_KMAJOR, typename T, int BM, int BK, int BN, int WG_M, typename BTile>
__device__ __forceinline__ void mma_rs(const tile80::packed_a<accum<BM, BK, WG_M, 1>, T> &P, const BTile &B,
                                       accum<BM, BN, WG_M, 1> &C)
{
    typedef accum<BM, BN, WG_M, 1> acc;
    static_assert(B_KMAJOR ? (BTile::rows == BN && BTile::cols == BK) : (BTile::rows == BK && BTile::cols == BN),
                  "tile90::mma_rs: the B tile is BN x BK (B_KMAJOR) or BK x BN");
    static_assert(BK % 16 == 0, "tile90::mma_rs: BK is a multiple of 16");
    static_assert(B_KMAJOR || acc::WTN % BTile::PANEL_COLS == 0, "tile90::mma_rs: B's panels split the tile");
    constexpr bool BF16 = element<T>::bf16;
#if TILE90_DEVICE
    ptx::fence_operands(C.v);
    ptx::wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < BK / 16; kk++) {
        const uint64_t db = B_KMAJOR ? desc_kmajor(B, C.n0, kk * 16) : desc_mnmajor(B, C.n0, kk * 16);
#pragma unroll
        for (int mi = 0; mi < acc::MI; mi++)
            ptx::wgmma_rs<acc::WTN, BF16, B_KMAJOR ? 0 : 1>::run(&C.v[mi * acc::NI * 4], P.at(kk, mi), db, 1);
    }
    ptx::wgmma_commit();
    ptx::fence_operands(C.v);
#else
    (void)P, (void)B, (void)C, (void)BF16;
#endif
}

/* The same with P a float fragment whose elements hold values of T (an
 * earlier product's accumulator): all of P rounded and packed first
 * (registers written between the fence and the products would make ptxas
 * wait for each product, warning C7519). */
template <bool B_KMAJOR, typename T, int BM, int BK, int BN, int WG_M, typename BTile>
__device__ __forceinline__ void mma_rs(const accum<BM, BK, WG_M, 1> &P, const BTile &B, accum<BM, BN, WG_M, 1> &C)
{
    tile80::packed_a<accum<BM, BK, WG_M, 1>, T> a;
    a.pack(P);
    mma_rs<B_KMAJOR>(a, B, C);
}

/* ---- the epilogue through shared memory ----
 * The accumulator goes out in chunks of 64 rows x 128 bytes: each consumer
 * warpgroup converts a chunk into one of its two staging buffers (in the
 * 128-byte swizzle, free of bank conflicts) and one thread hands it to a TMA
 * store, which clips at the matrix edges and runs while the warpgroup goes
 * on (with its next chunk, or the next tile's products). */
template <typename TO> struct epilogue_chunk {
    static constexpr int COLS = 128 / (int)sizeof(TO);
    typedef smem_tile<TO, 64, COLS, 128> tile; /* the tensor map's box */
};
constexpr int EPILOGUE_BYTES_PER_GROUP = 2 * 8192;

/* Stores C (converted to TO, rounded to nearest even) at (r0, c0) of the map's
 * matrix (slice `lead...`). `staging`: the block's epilogue area; `chunks`:
 * this thread's running count of chunks, which picks the buffer. */
template <typename TO, typename Acc, typename... Lead>
__device__ __forceinline__ void store_tma(unsigned char *staging, int &chunks, const CUtensorMap *map, long long r0,
                                          long long c0, const Acc &C, Lead... lead)
{
    constexpr int CC = epilogue_chunk<TO>::COLS, RANK = 2 + (int)sizeof...(Lead);
    static_assert(Acc::WTM % 64 == 0 && Acc::WTN % CC == 0, "tile90::store_tma: whole chunks per warpgroup");
    typedef tile80::detail::pair_of<TO> pair;
    const int t = Acc::thread() & 127, group = (int)(threadIdx.x >> 7) - 1;
    const int row = (t >> 5) * 16 + (t & 31) / 4; /* and row + 8: same swizzle phase */
    const long long outer[] = {(long long)lead..., 0};
    unsigned char *mine = staging + group * EPILOGUE_BYTES_PER_GROUP;
#pragma unroll
    for (int mi = 0; mi < Acc::MI; mi++)
#pragma unroll
        for (int j = 0; j < Acc::WTN / CC; j++, chunks++) {
            unsigned char *buf = mine + (chunks & 1) * 8192;
            if (t == 0) /* the store that used this buffer two chunks ago has read it */
                cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<1>{});
            group_sync(group);
#pragma unroll
            for (int q = 0; q < CC / 8; q++) {
                const float *v = &C.v[(mi * Acc::NI + j * (CC / 8) + q) * 4];
                const int byte = (q * 8 + (t & 3) * 2) * (int)sizeof(TO);
                const int at = ((byte / 16) ^ (row & 7)) * 16 + byte % 16;
                *reinterpret_cast<typename pair::type *>(buf + row * 128 + at) = pair::make(v[0], v[1]);
                *reinterpret_cast<typename pair::type *>(buf + (row + 8) * 128 + at) = pair::make(v[2], v[3]);
            }
            cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
            group_sync(group);
            if (t == 0) {
                int32_t coords[RANK];
                coords[0] = (int32_t)(c0 + C.n0 + j * CC);
                coords[1] = (int32_t)(r0 + C.m0 + mi * 64);
#pragma unroll
                for (int i = 2; i < RANK; i++)
                    coords[i] = (int32_t)outer[RANK - 1 - i];
                cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_global, cuda::ptx::space_shared, map, coords, buf);
                cuda::ptx::cp_async_bulk_commit_group();
            }
        }
}

/* ---- the queue of iterations (dynamic scheduling) ----
 * The producer thread takes the block's iterations one after the other and
 * puts each in the next slot, the last one past the grid's end; every
 * consumer thread takes every slot (ping-pong warpgroups also step over the
 * other's iterations: they need their trip counts). Slot s has a full
 * barrier (the producer's arrival) and an empty one (one arrival per
 * consumer thread: each thread's arrival releases its own read of the slot,
 * which compute-sanitizer's racecheck follows; one arrival a warp after a
 * __syncwarp orders the reads as well, but racecheck reports it as a
 * hazard). The producer refills a slot only after every consumer took it,
 * so it is at most one phase ahead of any consumer and a parity wait
 * cannot mistake one fill for another. A slot is taken once an iteration:
 * the arrivals cost nothing that shows. */
template <int SLOTS> struct iter_queue {
    uint64_t *bars; /* full[0..SLOTS), empty[0..SLOTS), then the slots */
    int slot = 0;
    uint32_t phase = 0;

    __device__ __forceinline__ uint64_t *full(int s) const { return bars + s; }
    __device__ __forceinline__ uint64_t *empty(int s) const { return bars + SLOTS + s; }
    __device__ __forceinline__ volatile long long *value(int s) const
    {
        return reinterpret_cast<volatile long long *>(bars + 2 * SLOTS) + s;
    }
    __device__ __forceinline__ void advance()
    {
        if (++slot == SLOTS) {
            slot = 0;
            phase ^= 1;
        }
    }

    /* Thread 0; the block synchronises before first use. */
    __device__ __forceinline__ void init(int consumer_warps) const
    {
        init_full_empty(bars, SLOTS, 32 * consumer_warps);
    }
    /* The producer thread: iteration t goes in the next slot, once every
     * consumer took what it held before (the arrival releases the write). */
    __device__ __forceinline__ void put(long long t)
    {
        wait_parity(empty(slot), phase ^ 1);
        *value(slot) = t;
        cuda::ptx::mbarrier_arrive(full(slot));
        advance();
    }
    /* Every consumer thread: the next iteration (the wait acquires the
     * producer's write); its arrival hands the slot back after its read. */
    __device__ __forceinline__ long long take()
    {
        wait_parity(full(slot), phase);
        const long long t = *value(slot);
        cuda::ptx::mbarrier_arrive(empty(slot));
        advance();
        return t;
    }
};

/* The iteration a block takes after t, of `tiles`: the next the counter
 * hands out (the first gridDim.x went one to each block at launch), or
 * with no counter (TILEPP_SCHEDULE=static) t + gridDim.x. Each of the
 * launch's iterations fetches once (the last ones past the end), so the
 * fetches get 0 to tiles - 1, and the one that gets tiles - 1 is the
 * launch's last: it zeroes the counter for the next launch (kept_counter). */
__device__ __forceinline__ long long next_tile(unsigned long long *counter, long long t, long long tiles)
{
    if (!counter)
        return t + (long long)gridDim.x;
    const long long fetched = (long long)atomicAdd(counter, 1ULL);
    if (fetched == tiles - 1)
        *counter = 0;
    return (long long)gridDim.x + fetched;
}

/* Before the block exits: its TMA stores are complete. */
__device__ __forceinline__ void store_tma_finish()
{
    if ((threadIdx.x & 127) == 0)
        cuda::ptx::cp_async_bulk_wait_group(cuda::ptx::n32_t<0>{});
}

#endif /* __CUDACC__ */

} // namespace tile90

#endif /* TILEPP_TILE_MMA_SM90_CUH */
