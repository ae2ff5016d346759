#!/usr/bin/env python3
"""test_plot.py — bench/plot.py on the hand-written results of bench/testdata.

    test_plot.py PLOT_PY TESTDATA_DIR OUT_DIR

Checks that plot.py writes one PNG per bench named in the CSV files (read
here with the csv module, independently of plot.py), each a real PNG of a
sane size, and nothing else; that --help works; and that it refuses, with
a message naming the file, a CSV without the columns, a field that is not
a number, and a folder without records. Exits 77 (skipped, with the reason)
when matplotlib cannot be imported."""
import csv
import os
import shutil
import struct
import subprocess
import sys
import tempfile


def benches_in(folder):
    names = set()
    for name in sorted(os.listdir(folder)):
        if name.endswith(".csv"):
            with open(os.path.join(folder, name), newline="") as f:
                rows = csv.DictReader(line for line in f if not line.startswith("#"))
                names |= {row["bench"] for row in rows}
    return names


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        return None
    return struct.unpack(">II", head[16:24])


def run(plot, *args):
    return subprocess.run([sys.executable, plot, *args], capture_output=True, text=True)


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    plot, data, out = sys.argv[1:]
    try:
        import matplotlib  # noqa: F401
    except ImportError as e:
        print(f"SKIPPED: matplotlib is not importable ({e}); pip install matplotlib, "
              "or apt-get install python3-matplotlib")
        return 77

    failures = []

    def check(ok, what):
        print(("ok    " if ok else "FAIL  ") + what)
        if not ok:
            failures.append(what)

    shutil.rmtree(out, ignore_errors=True)
    r = run(plot, "-o", out, data)
    check(r.returncode == 0, f"plot.py -o OUT {data}: exit {r.returncode} {r.stderr.strip()}")
    expected = {name + ".png" for name in benches_in(data)}
    check(len(expected) >= 5, f"the test data names {len(expected)} benches")
    written = set(os.listdir(out)) if os.path.isdir(out) else set()
    check(written == expected, f"charts written: {sorted(written)}, expected {sorted(expected)}")
    for name in sorted(expected & written):
        path = os.path.join(out, name)
        size = png_size(path)
        check(size is not None and size[0] >= 400 and size[1] >= 300 and os.path.getsize(path) > 5000,
              f"{name}: a PNG of {size} pixels, {os.path.getsize(path)} bytes")
        check(path in r.stdout.split("\n"), f"{name}: its path printed")

    r = run(plot, "--help")
    check(r.returncode == 0 and "usage" in r.stdout and "--out" in r.stdout, "--help")

    with tempfile.TemporaryDirectory() as tmp:
        bad = os.path.join(tmp, "bad.csv")
        with open(bad, "w") as f:
            f.write("bench,kernel,shape\nx,y,z\n")
        r = run(plot, "-o", tmp, bad)
        check(r.returncode != 0 and "bad.csv" in r.stderr and "column" in r.stderr,
              f"a CSV without the columns is refused: {r.stderr.strip()}")
        with open(bad, "w") as f:
            f.write("bench,kernel,shape,dtype,metric,tilepp_ms,tilepp_rate,reference,reference_ms,reference_rate,"
                    "ratio,rel_err\nx,k,1,f32,GB/s,fast,,,,,,\n")
        r = run(plot, "-o", tmp, bad)
        check(r.returncode != 0 and "bad.csv:2" in r.stderr and "tilepp_ms" in r.stderr,
              f"a field that is not a number is refused: {r.stderr.strip()}")
        empty = os.path.join(tmp, "empty")
        os.mkdir(empty)
        r = run(plot, "-o", tmp, empty)
        check(r.returncode != 0 and "no records" in r.stderr, f"a folder without records: {r.stderr.strip()}")
        check(not any(n.endswith(".png") for n in os.listdir(tmp)), "no chart written for bad input")

    print(f"{len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
