/* mma_test_variants.cu — mma_test's cases for other block tiles, warp
 * layouts, depths and pipeline lengths (the primitives in the translator's
 * mainloop order). */
#include "mma_test.h"

/* BM x BN x BK, warps M x N, stages, L2 panel */
typedef gemm_config<64, 64, 32, 2, 2, 2, 1> cfg_small;
typedef gemm_config<128, 256, 32, 2, 4, 4, 3> cfg_wide;
typedef gemm_config<256, 128, 64, 4, 2, 3, 8> cfg_tall;
typedef gemm_config<128, 128, 64, 2, 2, 3, 5> cfg_deep; /* the fastest on the H200 */
typedef gemm_config<64, 128, 32, 1, 4, 3, 2> cfg_row;
typedef gemm_config<64, 64, 64, 2, 4, 2, 1> cfg_thin;

void test_variants(cublasHandle_t h, rng &g)
{
    check_coords<cfg_small>();
    check_coords<cfg_wide>();
    check_coords<cfg_tall>();
    check_coords<cfg_row>();
    check_coords<cfg_thin>();
    run_layouts<cfg_small, tile_half, tile_half>(h, g);
    run_shapes<cfg_small, tile_bfloat16, float, true, false>(h, g);
    run_layouts<cfg_wide, tile_half, tile_half>(h, g);
    run_shapes<cfg_wide, tile_bfloat16, float, true, false>(h, g);
    run_shapes<cfg_tall, tile_half, float, true, false>(h, g);
    run_shapes<cfg_tall, tile_half, float, false, true>(h, g);
    run_layouts<cfg_deep, tile_bfloat16, tile_half>(h, g);
    run_shapes<cfg_deep, tile_half, float, true, false>(h, g);
    run_shapes<cfg_row, tile_half, tile_half, true, false>(h, g);
    run_shapes<cfg_row, tile_half, tile_half, false, true>(h, g);
    run_shapes<cfg_thin, tile_half, float, true, false>(h, g);
    run_shapes<cfg_thin, tile_half, float, true, true>(h, g);
}
