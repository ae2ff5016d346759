/* tile_runtime.cuh — the device and host runtime that generated code uses.
 *
 * Small and explicit: storage types with C's arithmetic, views that index
 * flat device pointers like C99 arrays, wide loads and stores through
 * registers, loop descriptors and a checked launcher. Generated code composes
 * these; users do not include this file directly (tile.h does, under nvcc). */
#ifndef TILEPP_TILE_RUNTIME_CUH
#define TILEPP_TILE_RUNTIME_CUH

/* `half` is the user's name for tile_half (tile.h); keep CUDA's own out. */
#ifndef CUDA_NO_HALF
#define CUDA_NO_HALF
#endif
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <atomic>
#include <limits>
#include <type_traits>
#include <utility>

/* ---- half and bfloat16 with C's semantics ----
 * C computes on _Float16 and __bf16 in float and rounds when it stores. These
 * wrappers do the same: reading one yields a float, so `a + b` is a float
 * addition, and assigning a float rounds to nearest even. They deliberately
 * have no arithmetic operators of their own. */
struct tile_half_format {
    typedef __half bits;
    static __host__ __device__ bits from_float(float f) { return __float2half_rn(f); }
    static __host__ __device__ bits from_double(double d) { return __double2half(d); }
    static __host__ __device__ float to_float(bits b) { return __half2float(b); }
};

struct tile_bfloat16_format {
    typedef __nv_bfloat16 bits;
    static __host__ __device__ bits from_float(float f) { return __float2bfloat16_rn(f); }
    static __host__ __device__ bits from_double(double d) { return __double2bfloat16(d); }
    static __host__ __device__ float to_float(bits b) { return __bfloat162float(b); }
};

template <typename Format> struct tile_float16 {
    typename Format::bits v;
    tile_float16() = default;
    __host__ __device__ tile_float16(float f) : v(Format::from_float(f)) {}
    /* Other arithmetic types convert in one rounding, as in C. */
    template <typename A, typename = typename std::enable_if<std::is_arithmetic<A>::value &&
                                                             !std::is_same<A, float>::value>::type>
    __host__ __device__ tile_float16(A a) : v(Format::from_double((double)a)) {}
    /* Between the 16-bit types: through float, exact for the source. */
    template <typename S, typename std::enable_if<std::is_class<S>::value && std::is_convertible<S, float>::value,
                                                  int>::type = 0>
    __host__ __device__ tile_float16(const S &s) : v(Format::from_float(float(s))) {}
    __host__ __device__ operator float() const { return Format::to_float(v); }
    __host__ __device__ tile_float16 &operator+=(float x) { return *this = float(*this) + x; }
    __host__ __device__ tile_float16 &operator-=(float x) { return *this = float(*this) - x; }
    __host__ __device__ tile_float16 &operator*=(float x) { return *this = float(*this) * x; }
    __host__ __device__ tile_float16 &operator/=(float x) { return *this = float(*this) / x; }
};

typedef tile_float16<tile_half_format> tile_half;
typedef tile_float16<tile_bfloat16_format> tile_bfloat16;

static_assert(sizeof(tile_half) == 2 && sizeof(tile_bfloat16) == 2, "16-bit storage types");

/* ---- tile_min and tile_max ----
 * In C they are macros, ((a) < (b) ? (a) : (b)), whose type is what C's usual
 * arithmetic conversions make of a and b. In generated code they are
 * functions of that type: a conditional between tile_half and float is
 * ambiguous in C++ (each converts to the other), so the macro cannot stay.
 * The arguments are evaluated once, where the macro evaluates one of them
 * twice; tile.h asks for arguments without side effects. */
template <typename T> struct tile_f16_rank : std::integral_constant<int, 0> {};
/* half with bfloat16 is half, as clang (the translator's C compiler) has it. */
template <> struct tile_f16_rank<tile_half> : std::integral_constant<int, 2> {};
template <> struct tile_f16_rank<tile_bfloat16> : std::integral_constant<int, 1> {};

/* Neither is 16-bit: C++'s conversions are C's, with the integer promotions
 * C applies (short and short make int; the unary + does that). */
template <typename A, typename B> struct tile_c_common_plain {
    typedef decltype(+(true ? std::declval<A>() : std::declval<B>())) type;
};
/* A 16-bit float S with O: a floating O wins (float, double), an integer
 * converts to S, as in C. */
template <typename S, typename O> struct tile_c_common_16 {
    typedef typename std::conditional<std::is_floating_point<O>::value, O, S>::type type;
};
template <typename A, typename B> struct tile_c_common {
    static constexpr bool a_wins = tile_f16_rank<A>::value >= tile_f16_rank<B>::value;
    typedef typename std::conditional<
        (tile_f16_rank<A>::value || tile_f16_rank<B>::value),
        tile_c_common_16<typename std::conditional<a_wins, A, B>::type, typename std::conditional<a_wins, B, A>::type>,
        tile_c_common_plain<A, B>>::type::type type;
};

template <typename A, typename B>
constexpr __host__ __device__ typename tile_c_common<A, B>::type tile_min(A a, B b)
{
    typedef typename tile_c_common<A, B>::type T;
    return T(a) < T(b) ? T(a) : T(b);
}

template <typename A, typename B>
constexpr __host__ __device__ typename tile_c_common<A, B>::type tile_max(A a, B b)
{
    typedef typename tile_c_common<A, B>::type T;
    return T(a) > T(b) ? T(a) : T(b);
}

/* The types C gives (checked here, where every generated file compiles them). */
static_assert(std::is_same<decltype(tile_min(tile_half(), 1)), tile_half>::value, "half with int: half");
static_assert(std::is_same<decltype(tile_max(1.0f, tile_half())), float>::value, "half with float: float");
static_assert(std::is_same<decltype(tile_max(tile_bfloat16(), 1.0)), double>::value, "bfloat16 with double: double");
static_assert(std::is_same<decltype(tile_min(tile_bfloat16(), tile_bfloat16())), tile_bfloat16>::value, "bf16");
static_assert(std::is_same<decltype(tile_min(tile_half(), tile_bfloat16())), tile_half>::value, "half, bf16");
static_assert(std::is_same<decltype(tile_min((short)1, (short)2)), int>::value, "promotions");
static_assert(std::is_same<decltype(tile_max(1, 2u)), unsigned>::value, "int with unsigned: unsigned");
static_assert(std::is_same<decltype(tile_max(1LL, 2.0f)), float>::value, "long long with float: float");
static_assert(tile_max(3, 4) == 4 && tile_min(3, 4L) == 3, "constant expressions, as the C macros are");

/* ---- C99 array parameters ----
 * `const half x[rows][cols]` arrives as a flat pointer; a view gives `x[r][c]`
 * its C meaning, so loop bodies keep their source text. */
template <typename T, int R> struct tile_view {
    T *ptr;
    long long ext[R - 1]; /* extents of dimensions 1 .. R-1 */

    __host__ __device__ auto operator[](long long i) const
    {
        long long stride = 1;
        for (int d = 0; d < R - 1; d++)
            stride *= ext[d];
        if constexpr (R == 2) {
            return ptr + i * stride;
        } else {
            tile_view<T, R - 1> row;
            row.ptr = ptr + i * stride;
            for (int d = 0; d < R - 2; d++)
                row.ext[d] = ext[d + 1];
            return row;
        }
    }
};

/* ---- wide memory access ----
 * N consecutive elements move between memory and a register array in the
 * widest pieces (up to 16 bytes) that the byte count allows. The caller
 * guarantees alignment to tile_vec_align<T, N>() bytes. */
template <typename T, int N> __host__ __device__ constexpr int tile_vec_align()
{
    return (int)sizeof(T) * N >= 16 ? 16 : (int)sizeof(T) * N;
}

template <int BYTES> struct tile_chunk;
template <> struct tile_chunk<16> { typedef uint4 type; };
template <> struct tile_chunk<8> { typedef uint2 type; };
template <> struct tile_chunk<4> { typedef unsigned type; };
template <> struct tile_chunk<2> { typedef unsigned short type; };

template <typename T, int N> __device__ __forceinline__ void tile_vec_load(T (&regs)[N], const T *src)
{
    constexpr int W = tile_vec_align<T, N>();
    typedef typename tile_chunk<W>::type chunk;
    constexpr int PIECES = (int)sizeof(T) * N / W;
    chunk tmp[PIECES];
#pragma unroll
    for (int i = 0; i < PIECES; i++)
        tmp[i] = reinterpret_cast<const chunk *>(src)[i];
    memcpy(regs, tmp, sizeof regs);
}

template <typename T, int N> __device__ __forceinline__ void tile_vec_store(T *dst, const T (&regs)[N])
{
    constexpr int W = tile_vec_align<T, N>();
    typedef typename tile_chunk<W>::type chunk;
    constexpr int PIECES = (int)sizeof(T) * N / W;
    chunk tmp[PIECES];
    memcpy(tmp, regs, sizeof tmp);
#pragma unroll
    for (int i = 0; i < PIECES; i++)
        reinterpret_cast<chunk *>(dst)[i] = tmp[i];
}

template <int BYTES> static inline bool tile_aligned_host(const void *p)
{
    return ((uintptr_t)p & (BYTES - 1)) == 0;
}

template <int BYTES> __device__ __forceinline__ bool tile_aligned(const void *p)
{
    return ((uintptr_t)p & (BYTES - 1)) == 0;
}

/* ---- loops ----
 * A canonical C loop `for (v = lo; v REL hi; v += step)` as the launcher
 * evaluates it: the variable's value at iteration k is lo + k * step. */
struct tile_loop {
    long long lo, step, count;
};

/* count < 0 marks a loop that would never end (step 0 or away from hi). */
__host__ __device__ inline tile_loop tile_make_loop(long long lo, long long hi, long long step, bool inclusive)
{
    tile_loop l = {lo, step, 0};
    if (step > 0) {
        if (inclusive)
            l.count = hi >= lo ? (hi - lo) / step + 1 : 0;
        else
            l.count = hi > lo ? (hi - lo + step - 1) / step : 0;
    } else if (step < 0) {
        long long s = -step;
        if (inclusive)
            l.count = lo >= hi ? (lo - hi) / s + 1 : 0;
        else
            l.count = lo > hi ? (lo - hi + s - 1) / s : 0;
    } else
        l.count = hi > lo || (inclusive && hi == lo) ? -1 : 0;
    return l;
}

/* Non-negative a / positive b; 32-bit division when both fit, which is far
 * cheaper on the GPU than the 64-bit one. */
__host__ __device__ __forceinline__ long long tile_div(long long a, long long b)
{
    if (((unsigned long long)a | (unsigned long long)b) <= 0xffffffffull)
        return (long long)((unsigned)a / (unsigned)b);
    return a / b;
}

/* The grid iteration of block t of a rows x cols grid. With panel > 0,
 * blocks go down panels of `panel` rows, column by column, so blocks that run
 * together share rows of A and columns of B in the L2 cache. */
__device__ __forceinline__ void tile_grid_index(long long t, long long rows, long long cols, int panel,
                                                long long &r, long long &c)
{
    if (panel <= 0) {
        r = tile_div(t, cols);
        c = t - r * cols;
        return;
    }
    long long per_panel = (long long)panel * cols;
    long long p = tile_div(t, per_panel), in = t - p * per_panel;
    long long height = rows - p * panel < panel ? rows - p * panel : panel;
    long long down = tile_div(in, height);
    r = p * panel + (in - down * height);
    c = down;
}

/* ---- reductions ----
 * `reduce(op: v)` as OpenMP means it: each thread combines its iterations
 * into a private copy that starts at op's identity; the block's copies are
 * combined by warp shuffles (a butterfly, so every lane ends with the same
 * value), then across warps through shared memory in warp order; across a
 * grid, each block leaves its part in device memory and one block combines
 * the parts in block order. The order is fixed for a given launch shape, so
 * the same inputs give the same bits on every run. max and min combine as
 * fmax and fmin do (a NaN gives way to the other operand). */
enum {
    TILE_RED_SUM,
    TILE_RED_PROD,
    TILE_RED_MAX,
    TILE_RED_MIN,
    TILE_RED_AND,
    TILE_RED_OR,
    TILE_RED_XOR,
    TILE_RED_LAND,
    TILE_RED_LOR
};

template <typename T> struct tile_is_float {
    static constexpr bool value = std::is_floating_point<T>::value || std::is_class<T>::value;
};

template <int OP, typename T> __host__ __device__ __forceinline__ T tile_identity()
{
    if constexpr (OP == TILE_RED_SUM || OP == TILE_RED_OR || OP == TILE_RED_XOR || OP == TILE_RED_LOR)
        return T(0);
    else if constexpr (OP == TILE_RED_PROD || OP == TILE_RED_LAND)
        return T(1);
    else if constexpr (OP == TILE_RED_AND)
        return T(~T(0));
    else if constexpr (tile_is_float<T>::value)
        return T(OP == TILE_RED_MAX ? -INFINITY : INFINITY);
    else if constexpr (std::is_same<T, bool>::value)
        return OP != TILE_RED_MAX;
    else { /* not std::numeric_limits: its members are host functions for nvcc */
        typedef typename std::make_unsigned<T>::type bits;
        constexpr T lowest = std::is_signed<T>::value ? T(bits(1) << (8 * sizeof(T) - 1)) : T(0);
        return OP == TILE_RED_MAX ? lowest : T(~lowest);
    }
}

template <int OP, typename T> __host__ __device__ __forceinline__ T tile_combine(T a, T b)
{
    if constexpr (OP == TILE_RED_SUM)
        return T(a + b);
    else if constexpr (OP == TILE_RED_PROD)
        return T(a * b);
    else if constexpr ((OP == TILE_RED_MAX || OP == TILE_RED_MIN) && std::is_same<T, float>::value)
        return OP == TILE_RED_MAX ? fmaxf(a, b) : fminf(a, b); /* one instruction, the same NaN rule */
    else if constexpr (OP == TILE_RED_MAX || OP == TILE_RED_MIN) {
        if constexpr (tile_is_float<T>::value) {
            if (b != b)
                return a;
            if (a != a)
                return b;
        }
        return (OP == TILE_RED_MAX ? a > b : a < b) ? a : b;
    } else if constexpr (OP == TILE_RED_AND)
        return T(a & b);
    else if constexpr (OP == TILE_RED_OR)
        return T(a | b);
    else if constexpr (OP == TILE_RED_XOR)
        return T(a ^ b);
    else if constexpr (OP == TILE_RED_LAND)
        return T(a && b);
    else
        return T(a || b);
}

/* Lane ^ mask's v. 16-bit floats travel as float (exactly), small integers as int. */
template <typename T> __device__ __forceinline__ T tile_shfl_xor(T v, int mask)
{
    if constexpr (std::is_class<T>::value)
        return T(__shfl_xor_sync(0xffffffffu, (float)v, mask));
    else if constexpr (sizeof(T) < 4)
        return T(__shfl_xor_sync(0xffffffffu, (int)v, mask));
    else
        return __shfl_xor_sync(0xffffffffu, v, mask);
}

/* Scratch a block reduction needs: one value per warp. Blocks a reduction
 * over the grid runs on at most, each leaving one part per variable. */
enum { TILE_REDUCE_SCRATCH = 32 * 8, TILE_MAX_PARTS = 1024 };

/* An element of a fragment's float registers that holds a T: what is
 * stored rounds to T, as assigning to a T in C does. */
template <typename T> struct tile_round_ref {
    float &v;
    __device__ __forceinline__ explicit tile_round_ref(float &r) : v(r) {}
    __device__ __forceinline__ operator float() const { return v; }
    __device__ __forceinline__ tile_round_ref &operator=(float x)
    {
        v = (float)(T)x;
        return *this;
    }
    __device__ __forceinline__ tile_round_ref &operator+=(float x) { return *this = v + x; }
    __device__ __forceinline__ tile_round_ref &operator-=(float x) { return *this = v - x; }
    __device__ __forceinline__ tile_round_ref &operator*=(float x) { return *this = v * x; }
    __device__ __forceinline__ tile_round_ref &operator/=(float x) { return *this = v / x; }
    __device__ __forceinline__ tile_round_ref &operator++() { return *this = v + 1.0f; }
    __device__ __forceinline__ tile_round_ref &operator--() { return *this = v - 1.0f; }
    __device__ __forceinline__ float operator++(int)
    {
        const float old = v;
        *this = v + 1.0f;
        return old;
    }
    __device__ __forceinline__ float operator--(int)
    {
        const float old = v;
        *this = v - 1.0f;
        return old;
    }
};

/* Named barrier 1 + team for a team of TEAM threads, the barrier's number
 * a constant (with a computed one ptxas reserves all 16 barriers, and a
 * multiprocessor then holds fewer blocks). */
template <int TEAM, int B, int N> __device__ __forceinline__ void tile_named_sync(int team)
{
    if constexpr (B < N) {
        if (team == B)
            asm volatile("bar.sync %0, %1;" ::"n"(1 + B), "n"(TEAM) : "memory");
        else
            tile_named_sync<TEAM, B + 1, N>(team);
    }
}

/* A barrier for the team of TEAM threads (whole warps, TEAM dividing
 * THREADS) that thread threadIdx.x belongs to: the block's barrier when
 * the team is the block, the warp's when it is a warp, else named barrier
 * 1 + team (barrier 0 is __syncthreads). Orders the team's memory
 * accesses as __syncthreads orders the block's. */
template <int TEAM, int THREADS> __device__ __forceinline__ void tile_team_sync()
{
    static_assert(TEAM % 32 == 0 && THREADS % TEAM == 0, "a team is whole warps of the block");
    if constexpr (TEAM >= THREADS)
        __syncthreads();
    else if constexpr (TEAM == 32)
        __syncwarp();
    else {
        static_assert(THREADS / TEAM <= 15, "one named barrier a team");
        tile_named_sync<TEAM, 0, THREADS / TEAM>((int)threadIdx.x / TEAM);
    }
}

/* The team's TEAM values combined (tile_team_sync); every thread of the
 * team gets the result. Every thread of the team must call it (beyond a
 * warp it holds two barriers). Teams use disjoint parts of the scratch:
 * one value per warp. */
template <int OP, int TEAM, int THREADS, typename T>
__device__ __forceinline__ T tile_team_reduce(T v, unsigned char *scratch)
{
#pragma unroll
    for (int mask = 16; mask > 0; mask >>= 1)
        v = tile_combine<OP>(v, tile_shfl_xor(v, mask));
    if constexpr (TEAM > 32) {
        T *per_warp = reinterpret_cast<T *>(scratch);
        const int warp = threadIdx.x / 32, first = warp - warp % (TEAM / 32);
        if (threadIdx.x % 32 == 0)
            per_warp[warp] = v;
        tile_team_sync<TEAM, THREADS>();
        v = per_warp[first];
#pragma unroll
        for (int w = 1; w < TEAM / 32; w++)
            v = tile_combine<OP>(v, per_warp[first + w]);
        tile_team_sync<TEAM, THREADS>(); /* the scratch is free for the next reduction */
    }
    return v;
}

/* The block's THREADS values combined; every thread gets the result.
 * Every thread of the block must call it (it holds two barriers). */
template <int OP, int THREADS, typename T> __device__ __forceinline__ T tile_block_reduce(T v, unsigned char *scratch)
{
    return tile_team_reduce<OP, THREADS, THREADS>(v, scratch);
}

/* A reduced variable's value in slot `slot` of a launcher's scratch. */
template <typename T> __device__ __forceinline__ T tile_slot(const unsigned char *slots, int slot)
{
    return *reinterpret_cast<const T *>(slots + 8 * slot);
}

/* Where the blocks leave their parts of reduced variable r. */
template <typename T> __device__ __forceinline__ T *tile_part(unsigned char *parts, int r)
{
    return reinterpret_cast<T *>(parts) + (long long)r * TILE_MAX_PARTS;
}

/* Devices whose attributes and pools the runtime keeps (device ids 0 to
 * TILE_MAX_DEVICES - 1; others are asked each time). */
enum { TILE_MAX_DEVICES = 64 };

/* tilepp's memory pool on the current device, made once per process, or
 * NULL where the device has none (then the device's current pool serves).
 * Its release threshold is the most there is, so that what a launcher frees
 * stays with the pool for the next launch, across synchronizations: the
 * device's default pool gives its memory back at each one, and allocating
 * it again cost a launch some 60 us on the H200 (bench/RESULTS.md, the tile
 * counter). It holds at most what launches had in flight at once. */
static inline cudaMemPool_t tile_pool()
{
    static std::atomic<cudaMemPool_t> pools[TILE_MAX_DEVICES];
    static std::atomic<bool> none[TILE_MAX_DEVICES];
    int device = -1;
    if (cudaGetDevice(&device) != cudaSuccess || device < 0 || device >= TILE_MAX_DEVICES) {
        (void)cudaGetLastError();
        return nullptr;
    }
    cudaMemPool_t pool = pools[device].load(std::memory_order_acquire);
    if (pool || none[device].load(std::memory_order_relaxed))
        return pool;
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    uint64_t most = ~(uint64_t)0;
    if (cudaMemPoolCreate(&pool, &props) != cudaSuccess ||
        cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &most) != cudaSuccess) {
        (void)cudaGetLastError(); /* no pools here: not the launch's error */
        none[device].store(true, std::memory_order_relaxed);
        return nullptr;
    }
    cudaMemPool_t expected = nullptr;
    if (!pools[device].compare_exchange_strong(expected, pool, std::memory_order_acq_rel)) {
        (void)cudaMemPoolDestroy(pool); /* another thread's came first */
        return expected;
    }
    return pool;
}

/* Device memory of a launcher's own, allocated in stream order (from
 * tile_pool) and freed so when the launcher returns (also on an error):
 * what its launches read and write and nothing after them does. */
template <typename T> struct tile_stream_array {
    cudaStream_t stream = 0;
    T *ptr = nullptr;
    cudaError_t alloc(cudaStream_t s, size_t count)
    {
        stream = s;
        if (cudaMemPool_t pool = tile_pool())
            return cudaMallocFromPoolAsync((void **)&ptr, sizeof(T) * count, pool, stream);
        return cudaMallocAsync((void **)&ptr, sizeof(T) * count, stream);
    }
    ~tile_stream_array()
    {
        if (ptr)
            (void)cudaFreeAsync(ptr, stream);
    }
};

/* The slots and parts of a launcher's reductions. */
struct tile_scratch {
    tile_stream_array<unsigned char> slots, parts;
    cudaError_t init(cudaStream_t s, int nslots, int nparts_vars)
    {
        if (nslots == 0)
            return cudaSuccess;
        cudaError_t err = slots.alloc(s, 8 * (size_t)nslots);
        if (err == cudaSuccess)
            err = parts.alloc(s, 8 * (size_t)TILE_MAX_PARTS * nparts_vars);
        return err;
    }
};

/* ---- launching ---- */

/* ---- the device a launch goes to ----
 * Launchers work on the current device, which may change between calls
 * (a host with several GPUs). What they ask of a device, and of a kernel on
 * a device, is asked once and kept per device: per process for the
 * attributes, per host thread for the rest (tile_memo), so no lock is
 * taken and no launch waits for another thread. */
struct tile_device {
    int id;           /* cudaGetDevice */
    int major, minor; /* compute capability */
    int sms;          /* multiprocessors */
};

/* The current device, its attributes asked once per process. */
static inline cudaError_t tile_current_device(tile_device *d)
{
    static std::atomic<int> known[TILE_MAX_DEVICES], majors[TILE_MAX_DEVICES], minors[TILE_MAX_DEVICES],
        counts[TILE_MAX_DEVICES];
    cudaError_t err = cudaGetDevice(&d->id);
    if (err != cudaSuccess)
        return err;
    const bool cached = d->id >= 0 && d->id < TILE_MAX_DEVICES;
    if (cached && known[d->id].load(std::memory_order_acquire)) {
        d->major = majors[d->id].load(std::memory_order_relaxed);
        d->minor = minors[d->id].load(std::memory_order_relaxed);
        d->sms = counts[d->id].load(std::memory_order_relaxed);
        return cudaSuccess;
    }
    err = cudaDeviceGetAttribute(&d->major, cudaDevAttrComputeCapabilityMajor, d->id);
    if (err == cudaSuccess)
        err = cudaDeviceGetAttribute(&d->minor, cudaDevAttrComputeCapabilityMinor, d->id);
    if (err == cudaSuccess)
        err = cudaDeviceGetAttribute(&d->sms, cudaDevAttrMultiProcessorCount, d->id);
    if (err == cudaSuccess && cached) {
        majors[d->id].store(d->major, std::memory_order_relaxed);
        minors[d->id].store(d->minor, std::memory_order_relaxed);
        counts[d->id].store(d->sms, std::memory_order_relaxed);
        known[d->id].store(1, std::memory_order_release);
    }
    return err;
}

/* Says once per device and process, on stderr, why a launcher cannot run
 * there: a bare error code does not say that the GPU is too old or that the
 * program was built without code for it. */
static inline void tile_explain_device(const tile_device *d, const char *why)
{
    static std::atomic<bool> told[TILE_MAX_DEVICES];
    if (d->id >= 0 && d->id < TILE_MAX_DEVICES && told[d->id].exchange(true))
        return;
    char name[256] = "?";
    cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, d->id) == cudaSuccess)
        snprintf(name, sizeof name, "%s", prop.name);
    fprintf(stderr, "tilepp: device %d (%s, compute capability %d.%d): %s\n", d->id, name, d->major, d->minor, why);
}

/* The current device, checked: the generated code needs sm_80 or newer
 * (mma.sync, cp.async, bf16). */
static inline cudaError_t tile_check_device(tile_device *d)
{
    cudaError_t err = tile_current_device(d);
    if (err != cudaSuccess)
        return err;
    if (d->major >= 8)
        return cudaSuccess;
    tile_explain_device(d, "tilepp's kernels need compute capability 8.0 or newer (mma.sync, cp.async, bf16)");
    return cudaErrorNoKernelImageForDevice;
}

/* A launch that failed for want of code for the device: the program was
 * built for other GPUs (ARCH / CUDA_ARCHITECTURES) and the driver could not
 * JIT-compile the embedded PTX. Returns err. */
static inline cudaError_t tile_launch_failed(const tile_device *d, cudaError_t err)
{
    if (err == cudaErrorNoKernelImageForDevice || err == cudaErrorInvalidDeviceFunction)
        tile_explain_device(d, "the program has no code for this GPU: build it for this architecture "
                               "(tile_add_kernels ARCH or CUDA_ARCHITECTURES, e.g. native)");
    else if (err == cudaErrorUnsupportedPtxVersion)
        tile_explain_device(d, "the driver is older than the CUDA toolkit that built the program, "
                               "so it cannot JIT-compile its PTX for this GPU");
    return err;
}

/* A few values per host thread, found by key: what a launcher computes once
 * for a kernel on a device (its shared-memory opt-in, its occupancy, a
 * tensor map). Per thread, so lock-free; a full memo forgets its oldest
 * entry, which costs only the call it would have saved. Key needs ==. */
template <typename Key, typename Value, int N = 8> struct tile_memo {
    Key keys[N];
    Value values[N];
    int used = 0, next = 0;
    const Value *find(const Key &k) const
    {
        for (int i = 0; i < used; i++)
            if (keys[i] == k)
                return &values[i];
        return nullptr;
    }
    void put(const Key &k, const Value &v)
    {
        const int i = used < N ? used++ : next++ % N;
        keys[i] = k;
        values[i] = v;
    }
};

struct tile_func_key {
    const void *func;
    int device;
    long long a, b;
    bool operator==(const tile_func_key &o) const
    {
        return func == o.func && device == o.device && a == o.a && b == o.b;
    }
};

/* cudaFuncSetAttribute(MaxDynamicSharedMemorySize), once per kernel, device
 * and size (the attribute is per device). */
template <typename Kernel> static inline cudaError_t tile_allow_smem(const tile_device *d, Kernel kernel, long long smem)
{
    static thread_local tile_memo<tile_func_key, bool> done;
    const tile_func_key key = {(const void *)kernel, d->id, smem, 0};
    if (done.find(key))
        return cudaSuccess;
    cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    if (err == cudaSuccess)
        done.put(key, true);
    return tile_launch_failed(d, err);
}

/* Blocks of `threads` with `smem` bytes that fit one multiprocessor at once,
 * once per kernel, device and launch shape. */
template <typename Kernel>
static inline cudaError_t tile_blocks_per_sm(const tile_device *d, Kernel kernel, int threads, long long smem,
                                             int *per_sm)
{
    static thread_local tile_memo<tile_func_key, int> known;
    const tile_func_key key = {(const void *)kernel, d->id, threads, smem};
    if (const int *v = known.find(key)) {
        *per_sm = *v;
        return cudaSuccess;
    }
    cudaError_t err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(per_sm, kernel, threads, (size_t)smem);
    if (err == cudaSuccess)
        known.put(key, *per_sm);
    return tile_launch_failed(d, err);
}

/* Launches `total` work items over blocks of `threads`; kernels loop over
 * the items with a grid stride, so the grid is capped at what CUDA allows. */
template <typename... Params, typename... Args>
static inline cudaError_t tile_launch(void (*kernel)(Params...), long long total, int threads,
                                      cudaStream_t stream, Args... args)
{
    long long blocks = (total + threads - 1) / threads;
    if (blocks > INT_MAX)
        blocks = INT_MAX;
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3((unsigned)blocks, 1, 1);
    config.blockDim = dim3((unsigned)threads, 1, 1);
    config.dynamicSmemBytes = 0;
    config.stream = stream;
    return cudaLaunchKernelEx(&config, kernel, args...);
}

/* The same on at most max_blocks blocks (a reduction's parts); *blocks
 * says how many. */
template <typename... Params, typename... Args>
static inline cudaError_t tile_launch_parts(void (*kernel)(Params...), long long total, int threads,
                                            long long max_blocks, int *blocks, cudaStream_t stream, Args... args)
{
    long long n = (total + threads - 1) / threads;
    *blocks = (int)(n < max_blocks ? n : max_blocks);
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3((unsigned)*blocks, 1, 1);
    config.blockDim = dim3((unsigned)threads, 1, 1);
    config.stream = stream;
    return cudaLaunchKernelEx(&config, kernel, args...);
}

/* Launches exactly `blocks` blocks (a grid nest: one block per iteration)
 * with `smem` bytes of dynamic shared memory. */
template <typename... Params, typename... Args>
static inline cudaError_t tile_launch_blocks(void (*kernel)(Params...), long long blocks, int threads, long long smem,
                                             cudaStream_t stream, Args... args)
{
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3((unsigned)blocks, 1, 1);
    config.blockDim = dim3((unsigned)threads, 1, 1);
    config.dynamicSmemBytes = (size_t)smem;
    config.stream = stream;
    return cudaLaunchKernelEx(&config, kernel, args...);
}

#include "tile_profile.cuh"

/* ---- tile_print in kernels ----------------------------------------------
 * tile_print(x) in a grid block prints from the GPU in tile.h's CPU format
 * (`name = value`; `name = [R x C] type`, then one line per row), after a
 * line `-- block (by=0, bx=1)` naming the block (the grid's loop variables
 * and their values). Thread 0 of each selected block prints; a lock over the
 * device keeps one print's lines together when several blocks print.
 *
 * Which blocks print: TILEPP_PRINT_BLOCK, read once per process by the
 * first launcher of a kernel that prints: unset, the first block (every
 * grid index 0); `i,j,...` the block whose loop variables have these values
 * (in the loops' order; missing trailing values are 0); `all` every block.
 * The same first call raises the device's printf buffer to 64 MB. */
#include <stdlib.h>
#include <string.h>

struct tile_print_sel {
    int mode; /* 0: the first block, 1: the block of v, 2: every block */
    long long v[3];
};

static inline tile_print_sel tile_print_parse(const char *s)
{
    tile_print_sel sel = {0, {0, 0, 0}};
    if (!s || !*s)
        return sel;
    if (strcmp(s, "all") == 0) {
        sel.mode = 2;
        return sel;
    }
    const char *p = s;
    for (int n = 0; n < 3; n++) {
        char *end;
        sel.v[n] = strtoll(p, &end, 10);
        if (end == p)
            break;
        p = end;
        while (*p == ' ')
            p++;
        if (*p == '\0') {
            sel.mode = 1;
            return sel;
        }
        if (*p != ',')
            break;
        p++;
    }
    fprintf(stderr, "tilepp: TILEPP_PRINT_BLOCK=%s: expected 'all' or up to 3 comma-separated integers; printing "
                    "the first block\n",
            s);
    return tile_print_sel{0, {0, 0, 0}};
}

/* Host: the selection, read once per process (inline: one for the program). */
inline tile_print_sel tile_print_select()
{
    static const tile_print_sel sel = [] {
        /* room for a few 128x128 tiles; fails harmlessly where a kernel that prints ran already */
        if (cudaDeviceSetLimit(cudaLimitPrintfFifoSize, (size_t)64 << 20) != cudaSuccess)
            (void)cudaGetLastError();
        return tile_print_parse(getenv("TILEPP_PRINT_BLOCK"));
    }();
    return sel;
}

#if defined(__CUDACC__)
/* first: every grid index of the block is 0; v0..v2: its loop variables. */
__device__ __forceinline__ bool tile_print_selected(const tile_print_sel &s, bool first, long long v0,
                                                    long long v1 = 0, long long v2 = 0)
{
    return s.mode == 2 || (s.mode == 0 && first) || (s.mode == 1 && v0 == s.v[0] && v1 == s.v[1] && v2 == s.v[2]);
}

static __device__ int tile_print_lock_;
__device__ inline void tile_print_acquire()
{
    while (atomicCAS(&tile_print_lock_, 0, 1) != 0)
        __nanosleep(64);
    __threadfence();
}
__device__ inline void tile_print_release()
{
    __threadfence();
    atomicExch(&tile_print_lock_, 0);
}

/* One value as tile.h prints it: floating types %g (16-bit ones through
 * float), integers %lld / %llu, bool 0 or 1; after `sep`. */
__device__ inline void tile_print_elem(const char *sep, double v) { printf("%s%g", sep, v); }
__device__ inline void tile_print_elem(const char *sep, float v) { printf("%s%g", sep, (double)v); }
__device__ inline void tile_print_elem(const char *sep, tile_half v) { printf("%s%g", sep, (double)(float)v); }
__device__ inline void tile_print_elem(const char *sep, tile_bfloat16 v) { printf("%s%g", sep, (double)(float)v); }
__device__ inline void tile_print_elem(const char *sep, bool v) { printf("%s%llu", sep, (unsigned long long)v); }
__device__ inline void tile_print_elem(const char *sep, long long v) { printf("%s%lld", sep, v); }
__device__ inline void tile_print_elem(const char *sep, unsigned long long v) { printf("%s%llu", sep, v); }

template <typename T> __device__ inline void tile_print_scalar(const char *name, T v)
{
    printf("%s = ", name);
    tile_print_elem("", v);
    printf("\n");
}

/* `name = [R x C] type` (rank 2) or `name = [C] type` (rank 1). */
__device__ inline void tile_print_title(const char *name, const char *type, int rows, int cols, int rank)
{
    if (rank == 2)
        printf("%s = [%d x %d] %s\n", name, rows, cols, type);
    else
        printf("%s = [%d] %s\n", name, cols, type);
}

/* Rows of a tile: get(r, c) is element (r, c), converted to T. */
template <typename T, typename Get> __device__ inline void tile_print_rows(int rows, int cols, Get get)
{
    for (int r = 0; r < rows; r++) {
        for (int c = 0; c < cols; c++)
            tile_print_elem(c ? " " : "  ", (T)get(r, c));
        printf("\n");
    }
}
#endif

#endif /* TILEPP_TILE_RUNTIME_CUH */
