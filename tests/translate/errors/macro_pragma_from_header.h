/* A macro that makes a tile pragma (macro_pragma_from_header.c). */
#define TILE_PARALLEL _Pragma("tile parallel")
