/* swizzle_test.cu — the layout of tile80::smem_tile, checked on the host (no
 * GPU needed: chunk_offset is a host/device constexpr function).
 *
 * For each tile shape, every (row, chunk) must land on its own 16-byte slot
 * inside the tile (a bijection onto [0, bytes)), and the swizzle must keep
 * its promise: the 8 rows one ldmatrix phase reads at one column, and the 8
 * consecutive chunks one cp.async phase writes, fall into the 8 different
 * 16-byte slots of a 128-byte bank line. Rows of 192 bytes (a 96-column half
 * tile: a head dimension of 96) once broke the first rule: chunks 8-11 were
 * XORed to 12-15, into the next row or past the tile (an out-of-bounds
 * cp.async on the GPU). Exit 0 when every shape passes, 1 otherwise. */
#include <stdio.h>
#include <string.h>

#include "tile_mma_sm80.cuh"

static int failures;

static void fail(const char *what, int rows, int cols, int size, int r, int c)
{
    if (failures++ < 20)
        printf("FAIL %dx%d (%d-byte elements): %s at row %d, chunk %d\n", rows, cols, size, what, r, c);
}

template <typename T, int ROWS, int COLS> static void check_tile()
{
    typedef tile80::smem_tile<T, ROWS, COLS> tile;
    const int cpr = tile::CHUNKS_PER_ROW, slots = tile::bytes / 16;
    static unsigned char used[1 << 16];
    memset(used, 0, sizeof used);
    const int before = failures;
    for (int r = 0; r < ROWS; r++)
        for (int c = 0; c < cpr; c++) {
            const unsigned off = tile::chunk_offset(r, c);
            if (off % 16 || off / 16 >= (unsigned)slots)
                fail("chunk outside the tile", ROWS, COLS, (int)sizeof(T), r, c);
            else if (used[off / 16]++)
                fail("two chunks on one slot", ROWS, COLS, (int)sizeof(T), r, c);
        }
    /* ldmatrix: 8 consecutive rows from a multiple of 8, one column. */
    for (int r0 = 0; r0 + 8 <= ROWS; r0 += 8)
        for (int c = 0; c < cpr; c++) {
            unsigned seen = 0;
            for (int r = r0; r < r0 + 8; r++)
                seen |= 1u << (tile::chunk_offset(r, c) / 16 % 8);
            if (seen != 0xffu)
                fail("8 rows of one column share a bank slot", ROWS, COLS, (int)sizeof(T), r0, c);
        }
    /* cp.async: 8 consecutive chunks of the row-major chunk order. */
    for (int i0 = 0; i0 + 8 <= ROWS * cpr; i0 += 8) {
        unsigned seen = 0;
        for (int i = i0; i < i0 + 8; i++)
            seen |= 1u << (tile::chunk_offset(i / cpr, i % cpr) / 16 % 8);
        if (seen != 0xffu)
            fail("8 consecutive chunks share a bank slot", ROWS, COLS, (int)sizeof(T), i0 / cpr, i0 % cpr);
    }
    printf("%s %3d x %3d, %d-byte elements, rows of %d bytes\n", failures == before ? "ok  " : "FAIL", ROWS, COLS,
           (int)sizeof(T), tile::ROW_BYTES);
}

int main()
{
    check_tile<unsigned short, 2, 32>();   /* 64-byte rows, paired */
    check_tile<unsigned short, 64, 32>();  /* K-major tile of BK = 32 */
    check_tile<unsigned short, 64, 64>();  /* 128 bytes */
    check_tile<unsigned short, 64, 96>();  /* 192 bytes: a head dimension of 96 */
    check_tile<unsigned short, 128, 96>(); /* ... its Q tile */
    check_tile<unsigned short, 16, 160>(); /* 320 bytes */
    check_tile<unsigned short, 32, 128>(); /* 256 bytes */
    check_tile<unsigned short, 64, 224>(); /* 448 bytes */
    check_tile<unsigned short, 32, 256>(); /* 512 bytes */
    check_tile<float, 32, 48>();           /* 192 bytes of floats */
    check_tile<float, 8, 16>();            /* 64 bytes of floats */
    check_tile<float, 16, 64>();           /* 256 bytes of floats */
    printf("%s\n", failures ? "swizzle_test: FAILED" : "swizzle_test: all shapes passed");
    return failures ? 1 : 0;
}
