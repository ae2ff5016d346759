/* mma_test_pipeline.cu — mma_test's cases for the other mainloops of
 * gemm_ref_kernel.cu: tile80::gemm_pipeline, and mma before the copies. */
#include "mma_test.h"

/* BM x BN x BK, warps M x N, stages, L2 panel, min blocks per SM, mainloop */
typedef gemm_config<128, 128, 32, 2, 4, 3, 8, 1, MAINLOOP_PIPELINE> cfg_pipe;
typedef gemm_config<128, 256, 64, 2, 4, 3, 4, 1, MAINLOOP_PIPELINE> cfg_pipe_wide;
typedef gemm_config<64, 64, 32, 2, 2, 2, 1, 1, MAINLOOP_PIPELINE> cfg_pipe_s2;
typedef gemm_config<128, 256, 128, 2, 4, 2, 8, 1, MAINLOOP_PIPELINE> cfg_pipe_deep;
typedef gemm_config<128, 128, 32, 2, 2, 4, 8, 1, MAINLOOP_MMA_FIRST> cfg_mma_first;

void test_pipelines(cublasHandle_t h, rng &g)
{
    check_coords<cfg_pipe_deep>();
    run_layouts<cfg_pipe, tile_half, float>(h, g);
    run_shapes<cfg_pipe, tile_bfloat16, tile_half, false, true>(h, g);
    run_shapes<cfg_pipe_wide, tile_half, tile_half, true, false>(h, g);
    run_shapes<cfg_pipe_wide, tile_half, tile_half, false, true>(h, g);
    run_shapes<cfg_pipe_s2, tile_half, float, true, false>(h, g);
    run_shapes<cfg_pipe_s2, tile_half, float, false, true>(h, g);
    run_shapes<cfg_pipe_deep, tile_half, tile_half, true, false>(h, g);
    run_shapes<cfg_mma_first, tile_half, tile_half, false, false>(h, g);
}
