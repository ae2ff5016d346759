#pragma once
/* A local header, included twice, read once. */
#define OTHER_OFFSET 1.5f
