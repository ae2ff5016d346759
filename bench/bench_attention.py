"""bench_attention.py — samples/flash_attention.c against PyTorch's
scaled_dot_product_attention (flash and cuDNN backends), in one process on
the same GPU.

    python3 bench/bench_attention.py build/bench/libbench_attention_d128.so \
        build/bench/libbench_attention_d64.so build/bench/libbench_attention_d256.so \
        [--csv FILE]

The tilepp launcher comes from the shared libraries that bench/CMakeLists.txt
builds from the sample, one per head dim (flash_attention_gpu of the file
built with HEAD_DIM=128, 64 and 256; a missing one skips its shapes), called
through ctypes on the
default stream, which is PyTorch's current stream here). Each figure is the
median of CUDA-event timings after warm-up, rotating over several input sets
so that L2 does not keep one set's K and V, tilepp and the two SDPA backends
timed in turns in each repetition (timed_turns: the clock of a GPU at its
power limit drifts; in turns, each meets the same). FLOPs = 4 B H N^2 D, halved
for causal. Before timing, each configuration checks tilepp's output
against SDPA's (relative Frobenius error). Results go to bench/RESULTS.md by
hand; with --csv FILE also one CSV record per configuration and SDPA backend
(the columns of <tilepp/bench.h>'s TILE_BENCH_CSV_COLUMNS), for
bench/plot.py. With --schedule-ab the launcher is also timed with
TILEPP_SCHEDULE=static (its blocks take every gridDim-th tile instead of
taking tiles from a counter; the launchers read it at each call), the two
in turns in each repetition, so that clock drift hits both alike."""
import argparse
import csv
import ctypes
import datetime
import math
import os
import statistics

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

SETS, WARMUP, REPS = 4, 5, 30


def timed_turns(fns, sets):
    """Medians of each of fns timed in turns: each repetition runs them all,
    starting one later in the list each time, each call on its own input set
    (at the small shapes Q, K and V fit L2, and a call on the inputs of the
    call before it would find them there). Under a sustained load the GPU
    runs at its power limit and its clock moves by several percent within
    seconds; kernels timed one after the other would each meet another
    clock, timed in turns they meet the same."""
    for i in range(WARMUP):
        for fn in fns:
            fn(*sets[i % len(sets)])
    times = [[] for _ in fns]
    for i in range(REPS):
        for k in range(len(fns)):
            j = (i + k) % len(fns)
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fns[j](*sets[(len(fns) * i + k) % len(sets)])
            end.record()
            end.synchronize()
            times[j].append(start.elapsed_time(end))
    return [statistics.median(t) for t in times]


def timed_pair(fn_a, fn_b, sets):
    """Medians of fn_a and fn_b timed in turns (timed_turns)."""
    return tuple(timed_turns([fn_a, fn_b], sets))


def with_static_schedule(fn):
    """fn run with TILEPP_SCHEDULE=static, the environment restored after."""
    def run(*args):
        old = os.environ.get("TILEPP_SCHEDULE")
        os.environ["TILEPP_SCHEDULE"] = "static"
        try:
            fn(*args)
        finally:
            if old is None:
                del os.environ["TILEPP_SCHEDULE"]
            else:
                os.environ["TILEPP_SCHEDULE"] = old
    return run


def load(path):
    launch = ctypes.CDLL(path).flash_attention_gpu
    launch.restype = ctypes.c_int
    launch.argtypes = [ctypes.c_int] * 4 + [ctypes.c_float] + [ctypes.c_void_p] * 4
    return launch


# (B, H, N, D): issue 12's four shapes, two more at head dim 128, two at 256
SHAPES = [(8, 16, 1024, 64), (4, 32, 4096, 128), (1, 32, 8192, 128), (2, 16, 8192, 64), (8, 16, 1024, 128),
          (16, 16, 2048, 128), (4, 16, 4096, 256), (1, 16, 8192, 256)]


TITLE = "samples/flash_attention.c vs PyTorch scaled_dot_product_attention, fp16, BHND"
COLUMNS = ["bench", "kernel", "shape", "dtype", "metric", "tilepp_ms", "tilepp_rate", "reference", "reference_ms",
           "reference_rate", "ratio", "rel_err"]


def open_csv(path):
    """A CSV file as <tilepp/bench.h> starts one: title, device, columns."""
    f = open(path, "w", newline="")
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    f.write(f"# {TITLE}\n# {torch.cuda.get_device_name()}, torch {torch.__version__}, {date}\n")
    writer = csv.writer(f, lineterminator="\n")
    writer.writerow(COLUMNS)
    return f, writer


def number(x):
    return "" if x is None or math.isnan(x) or x <= 0 else f"{x:.6g}"


def main():
    parser = argparse.ArgumentParser(description=TITLE)
    parser.add_argument("libs", nargs="*", metavar="LIB",
                        help="libbench_attention_d128.so, _d64.so, _d256.so, in this order (a missing one skips "
                        "its shapes)")
    parser.add_argument("--csv", metavar="FILE", help="also write one CSV record per configuration and backend")
    parser.add_argument("--schedule-ab", action="store_true",
                        help="also time the launcher with TILEPP_SCHEDULE=static, in turns with the default")
    args = parser.parse_args()
    launchers = {}
    for path, dim in zip(args.libs, (128, 64, 256)):
        if os.path.exists(path):
            launchers[dim] = load(path)
    out, writer = open_csv(args.csv) if args.csv else (None, None)
    print(f"device: {torch.cuda.get_device_name()}, fp16, BHND")
    print("  B  H     N   D causal |  tilepp ms TFLOP/s | flash ms TFLOP/s | cudnn ms TFLOP/s | vs flash vs cudnn | rel err")
    for b, h, n, d in SHAPES:
        if d not in launchers:
            continue
        launch = launchers[d]
        for causal in (False, True):
            scale = 1.0 / math.sqrt(d)
            sets = []
            for _ in range(SETS):
                q, k, v = (torch.randn(b, h, n, d, device="cuda", dtype=torch.float16) for _ in range(3))
                sets.append((q, k, v, torch.full_like(q, float("nan"))))

            def tilepp(q, k, v, o):
                err = launch(b, h, n, int(causal), scale, q.data_ptr(), k.data_ptr(), v.data_ptr(), o.data_ptr())
                if err:
                    raise RuntimeError(f"flash_attention_gpu: error {err}")

            def sdpa(kind):
                def run(q, k, v, o):
                    with sdpa_kernel([kind]):
                        F.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=scale)
                return run

            q, k, v, o = sets[0]
            tilepp(q, k, v, o)
            with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
                ref = F.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=scale)
            rel = ((o.float() - ref.float()).norm() / ref.float().norm()).item()
            flops = 4.0 * b * h * n * n * d / (2 if causal else 1)
            backends = [sdpa(SDPBackend.FLASH_ATTENTION)]
            try:  # only the probe: tilepp's own errors are not caught here
                with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
                    F.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=scale)
                backends.append(sdpa(SDPBackend.CUDNN_ATTENTION))
            except RuntimeError:  # no cuDNN backend here
                pass
            t_tile, t_flash, *t_rest = timed_turns([tilepp] + backends, sets)
            t_cudnn = t_rest[0] if t_rest else float("nan")
            tf = lambda t: flops / t / 1e9
            print(f"{b:3d} {h:2d} {n:5d} {d:3d} {str(causal):>6} | {t_tile:9.3f} {tf(t_tile):8.1f} | {t_flash:8.3f} "
                  f"{tf(t_flash):8.1f} | {t_cudnn:8.3f} {tf(t_cudnn):8.1f} | {t_flash / t_tile:8.2f} "
                  f"{t_cudnn / t_tile:8.2f} | {rel:.1e}")
            if args.schedule_ab:
                t_dyn, t_static = timed_pair(tilepp, with_static_schedule(tilepp), sets)
                print(f"{'':22} | schedule: from a counter {t_dyn:.3f} ms {tf(t_dyn):.1f}, every gridDim-th "
                      f"{t_static:.3f} ms {tf(t_static):.1f}, counter/static {t_static / t_dyn:.3f}")
            if writer:
                shape = f"B{b} H{h} N{n} D{d}" + (" causal" if causal else "")
                for name, t_ref in (("PyTorch SDPA flash", t_flash), ("PyTorch SDPA cuDNN", t_cudnn)):
                    writer.writerow(["attention", "flash_attention_gpu", shape, "fp16", "TFLOP/s", number(t_tile),
                                     number(tf(t_tile)), name, number(t_ref), number(tf(t_ref)),
                                     number(t_ref / t_tile), f"{rel:.3g}"])
                out.flush()
    if out:
        out.close()


if __name__ == "__main__":
    main()
