#!/usr/bin/env python3
"""Median wall time and peak RSS of a command, for the figures in docs/measurements.md.

    tests/bench/timing.py [-n RUNS] -- CMD [ARG]...

Runs CMD RUNS times (default 50, after 3 warm-ups) with stdout discarded; prints the
median and 90th percentile wall time, and the peak RSS of one more run measured by GNU
time (/usr/bin/time, Debian package "time"): a child forked from Python would count
Python's own pages."""
import statistics
import subprocess
import sys
import time


def main():
    args = sys.argv[1:]
    runs = 50
    if args[:1] == ["-n"]:
        runs, args = int(args[1]), args[2:]
    if args[:1] == ["--"]:
        args = args[1:]
    if not args:
        sys.exit(__doc__)
    for _ in range(3):
        subprocess.run(args, stdout=subprocess.DEVNULL, check=True)
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(args, stdout=subprocess.DEVNULL, check=True)
        times.append((time.perf_counter() - t0) * 1000)
    out = subprocess.run(["/usr/bin/time", "-f", "%M"] + args, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True, check=True)
    rss_mb = int(out.stderr.strip().splitlines()[-1]) / 1024
    times.sort()
    print(f"median {statistics.median(times):.1f} ms  p90 {times[int(0.9 * (runs - 1))]:.1f} ms"
          f"  peak RSS {rss_mb:.1f} MB  ({runs} runs: {' '.join(args)})")


if __name__ == "__main__":
    main()
