#!/usr/bin/env python3
"""plot.py — charts of tilepp's benchmark results.

Reads the CSV files the benchmarks write with `--csv FILE` (bench_vector_add,
bench_rows, bench_gemm, bench_epilogue, bench_gemm_softmax, bench_launch and
bench_attention.py; the columns are TILE_BENCH_CSV_COLUMNS of
<tilepp/bench.h>) and draws one PNG chart per bench: for each shape, the
tilepp kernel's rate (TFLOP/s, GB/s) next to its reference's (cuBLAS,
PyTorch, the device copy, ...), with the ratio written over the pair. A
bench that records times only (bench_launch) is drawn in time per call.

    python3 bench/plot.py -o charts results/          # every *.csv in results/
    python3 bench/plot.py -o charts gemm.csv rows.csv

Needs matplotlib (pip install matplotlib, or Debian's python3-matplotlib).
"""
import argparse
import csv
import os
import re
import sys
import textwrap

COLUMNS = ["bench", "kernel", "shape", "dtype", "metric", "tilepp_ms", "tilepp_rate", "reference", "reference_ms",
           "reference_rate", "ratio", "rel_err"]
NUMBERS = ["tilepp_ms", "tilepp_rate", "reference_ms", "reference_rate", "ratio", "rel_err"]


class InputError(Exception):
    pass


def read_file(path):
    """The records of one CSV file, and its '#' comment lines (title, device)."""
    comments, lines = [], []
    with open(path, newline="", encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if line.startswith("#"):
                comments.append(line[1:].strip())
            elif line.strip():
                lines.append((number, line))
    if not lines:
        raise InputError(f"{path}: no column line and no records")
    reader = csv.reader([line for _, line in lines])
    header = next(reader)
    missing = [c for c in COLUMNS if c not in header]
    if missing:
        raise InputError(f"{path}:{lines[0][0]}: not a tilepp benchmark CSV (no column {', '.join(missing)})")
    records = []
    for (number, _), row in zip(lines[1:], reader):
        if len(row) != len(header):
            raise InputError(f"{path}:{number}: {len(row)} fields, the column line has {len(header)}")
        rec = dict(zip(header, row))
        for key in NUMBERS:
            text = rec[key].strip()
            try:
                rec[key] = float(text) if text else None
            except ValueError:
                raise InputError(f"{path}:{number}: {key} is not a number: {text!r}") from None
        if not rec["bench"]:
            raise InputError(f"{path}:{number}: no bench name")
        rec["title"] = comments[0] if comments else ""
        rec["device"] = comments[1] if len(comments) > 1 else ""
        records.append(rec)
    return records


def read_inputs(inputs):
    paths = []
    for item in inputs:
        if os.path.isdir(item):
            paths += sorted(os.path.join(item, n) for n in os.listdir(item) if n.endswith(".csv"))
        elif os.path.isfile(item):
            paths.append(item)
        else:
            raise InputError(f"{item}: no such file or directory")
    records = []
    for path in paths:
        records += read_file(path)
    if not records:
        raise InputError(f"no records in {', '.join(inputs)} (the benchmarks write them with --csv FILE)")
    return records


def by_bench(records):
    benches = {}
    for rec in records:
        benches.setdefault(rec["bench"], []).append(rec)
    return benches


def file_name(bench):
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", bench) + ".png"


def values(recs):
    """What to draw: rates when every record has them, else times per call."""
    if all(r["metric"] and r["tilepp_rate"] for r in recs):
        metric = recs[0]["metric"]
        return (lambda r: r["tilepp_rate"], lambda r: r["reference_rate"], f"{metric} (higher is better)")
    times = [t for r in recs for t in (r["tilepp_ms"], r["reference_ms"]) if t]
    if times and max(times) < 0.1:
        return (lambda r: r["tilepp_ms"] and r["tilepp_ms"] * 1e3, lambda r: r["reference_ms"] and r["reference_ms"] * 1e3,
                "time per call, µs (lower is better)")
    return (lambda r: r["tilepp_ms"], lambda r: r["reference_ms"], "time per call, ms (lower is better)")


def ratio_of(rec):
    if rec["ratio"]:
        return rec["ratio"]
    if rec["tilepp_ms"] and rec["reference_ms"]:
        return rec["reference_ms"] / rec["tilepp_ms"]
    return None


def plot_bench(plt, bench, recs, out_dir):
    tilepp_value, ref_value, ylabel = values(recs)
    dtypes = {r["dtype"] for r in recs}
    groups = {}
    for rec in recs:
        key = (rec["shape"], rec["dtype"])
        groups.setdefault(key, []).append(rec)

    kernel_colors = ["#1f77b4", "#2ca02c", "#9467bd", "#17becf", "#bcbd22", "#8c564b", "#e377c2"]
    ref_colors = ["#ff7f0e", "#7f7f7f", "#d62728", "#c7c7c7", "#ffbb78", "#98df8a"]
    colors, seen = {}, set()

    def color(role, name):
        key = (role, name)
        if key not in colors:
            palette = kernel_colors if role == "tilepp" else ref_colors
            used = sum(1 for k in colors if k[0] == role)
            colors[key] = palette[used % len(palette)]
        return colors[key]

    nbars = sum(1 + (1 if r["reference"] else 0) for r in recs)
    width = max(7.0, 0.42 * nbars + 0.5 * len(groups) + 3.0)
    fig, ax = plt.subplots(figsize=(width, 5.0))
    x, ticks, labels, top = 0.0, [], [], 0.0
    for (shape, dtype), members in groups.items():
        start = x
        for rec in members:
            tv = tilepp_value(rec)
            label = f"tilepp: {rec['kernel']}"
            if tv:
                ax.bar(x, tv, 0.9, color=color("tilepp", rec["kernel"]),
                       label=label if ("tilepp", label) not in seen else None)
                seen.add(("tilepp", label))
                top = max(top, tv)
            ratio = ratio_of(rec)
            if rec["reference"]:
                rv = ref_value(rec)
                if rv:
                    ax.bar(x + 1, rv, 0.9, color=color("ref", rec["reference"]), hatch="//", edgecolor="white",
                           label=rec["reference"] if ("ref", rec["reference"]) not in seen else None)
                    seen.add(("ref", rec["reference"]))
                    top = max(top, rv)
                else:  # no figure for the reference: say so where its bar would be
                    ax.text(x + 1, 0, f" {rec['reference']}: n/a", ha="center", va="bottom", fontsize=7, rotation=90)
                if ratio and tv:
                    ax.text(x + 0.5, max(tv, rv or 0), f"{ratio:.2f}x", ha="center", va="bottom", fontsize=8)
                x += 2
            else:
                x += 1
        ticks.append((start + x - 1) / 2)
        labels.append(f"{shape}\n{dtype}" if len(dtypes) > 1 and dtype else shape)
        x += 0.8
    ax.set_xticks(ticks)
    ax.set_xticklabels(labels, fontsize=8, rotation=20 if len(groups) > 6 else 0)
    ax.set_ylabel(ylabel)
    ax.set_ylim(0, top * 1.18 if top > 0 else 1)
    title = bench + (f": {recs[0]['title']}" if recs[0]["title"] else "")
    ax.set_title(textwrap.fill(title, int(width * 9)), fontsize=10)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    footer = "over each pair: reference time / tilepp time (above 1: tilepp faster)"
    if recs[0]["device"]:
        footer = recs[0]["device"] + "\n" + footer
    fig.text(0.01, 0.01, footer, fontsize=7, color="#555555", va="bottom")
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    path = os.path.join(out_dir, file_name(bench))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="plot.py",
        description="Turn the CSV files of tilepp's benchmarks (written with --csv FILE) into PNG charts, one per "
        "bench: tilepp against its reference (cuBLAS, PyTorch, the device copy) per shape.",
        epilog="Needs matplotlib: pip install matplotlib, or apt-get install python3-matplotlib.")
    parser.add_argument("inputs", nargs="+", metavar="INPUT", help="a CSV file, or a folder of them (*.csv)")
    parser.add_argument("-o", "--out", default=".", metavar="DIR", help="where to write the charts (default: .)")
    args = parser.parse_args(argv)
    try:
        records = read_inputs(args.inputs)
    except (InputError, OSError, csv.Error) as e:
        print(f"plot.py: {e}", file=sys.stderr)
        return 1
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot.py: matplotlib is not installed (pip install matplotlib, or apt-get install python3-matplotlib)",
              file=sys.stderr)
        return 1
    os.makedirs(args.out, exist_ok=True)
    for bench, recs in by_bench(records).items():
        print(plot_bench(plt, bench, recs, args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
