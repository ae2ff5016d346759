#!/usr/bin/env python3
"""schedule_model.py -- a model, not a measurement: how evenly persistent
blocks share FlashAttention's tiles on an H200 (132 SMs, one block each),
handed out statically (block j takes tiles j, j + 132, ...) or dynamically
(each block takes the next tile when it finishes one), in the grid's order
(batch, head, query block; a head's last query blocks first), and
dynamically in the sample's order (heads four at a time).

A tile of query block qb costs its key steps (all of them, or with `causal`
those up to the block's last query) plus OVERHEAD steps (its prologue and
epilogue). Prints, per shape, the share of the ideal (total work / 132)
that the slowest block reaches: what the schedule alone lets the kernel
reach, all else equal.

    python3 bench/schedule_model.py [BLOCKS]
"""
import heapq
import sys

BM, OVERHEAD = 128, 1.5
SHAPES = [  # batch, heads, sequence, head dim, key tile (the tuned one)
    (8, 16, 1024, 64, 128), (4, 32, 4096, 128, 128), (1, 32, 8192, 128, 128),
    (2, 16, 8192, 64, 128), (16, 16, 2048, 128, 128), (4, 16, 4096, 256, 32),
]


def tiles(b, h, n, bn, causal, group=1):
    """The tiles' costs in the grid's order: in each batch the heads in
    groups of `group`, in a group the query blocks of its heads in turn,
    each head's last first (samples/flash_attention.c's HEAD_GROUP)."""
    nq = (n + BM - 1) // BM
    out = []
    for _ in range(b):
        for h0 in range(0, h, group):
            for qi in range(nq):
                qb = nq - 1 - qi
                last = min((qb + 1) * BM, n) if causal else n
                out.extend([(last + bn - 1) // bn + OVERHEAD] * min(group, h - h0))
    return out


def static(ts, blocks):
    load = [0.0] * blocks
    for i, t in enumerate(ts):
        load[i % blocks] += t
    return max(load)


def dynamic(ts, blocks):
    heap = [(0.0, j) for j in range(blocks)]
    for t in ts:
        done, j = heapq.heappop(heap)
        heapq.heappush(heap, (done + t, j))
    return max(done for done, _ in heap)


def main():
    blocks = int(sys.argv[1]) if len(sys.argv) > 1 else 132
    print(f"{'B x H x N, D':>18} causal | static dynamic, and dynamic 4 heads at a time "
          f"(share of the ideal, {blocks} blocks)")
    for b, h, n, d, bn in SHAPES:
        for causal in (False, True):
            ts, ts4 = tiles(b, h, n, bn, causal), tiles(b, h, n, bn, causal, 4)
            ideal = sum(ts) / blocks
            print(f"{b:>3} x {h:>2} x {n:>5}, {d:>3} {str(causal):>6} | "
                  f"{ideal / static(ts, blocks):.3f}  {ideal / dynamic(ts, blocks):.3f}  "
                  f"{ideal / dynamic(ts4, blocks):.3f}")


if __name__ == "__main__":
    main()
