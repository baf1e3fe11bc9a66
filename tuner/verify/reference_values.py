#!/usr/bin/env python3
"""Independent reference values for tuner/verify's tests (stats_test.cc, rank_sum_test.cc,
shift_test.cc). Standard library only (scipy is not installed on the build machines):
exact integer arithmetic for the Mann-Whitney distribution, brute force for the shift
bounds, statistics.NormalDist (Wichura's AS241) and math.erfc for the normal.

    python3 tuner/verify/reference_values.py
"""
import itertools
import math
from fractions import Fraction
from statistics import NormalDist


def u_counts(m, n):
    """counts[u] = number of rank arrangements with U = u, by the recurrence
    N(u; m, n) = N(u - n; m - 1, n) + N(u; m, n - 1) on exact integers."""
    table = {}

    def count(m, n):
        if (m, n) in table:
            return table[(m, n)]
        if m == 0 or n == 0:
            res = [1]
        else:
            a, b = count(m - 1, n), count(m, n - 1)
            res = [0] * (m * n + 1)
            for u, c in enumerate(a):
                res[u + n] += c
            for u, c in enumerate(b):
                res[u] += c
        table[(m, n)] = res
        return res

    return count(m, n)


def exact_upper(m, n, u):
    c = u_counts(m, n)
    return float(Fraction(sum(c[u:]), sum(c)))


def u_stat(x, y):
    return sum((b > a) + 0.5 * (b == a) for a in x for b in y)


def normal_mw(x, y):
    """Normal approximation with mid-rank tie correction and continuity correction."""
    m, n = len(x), len(y)
    allv = sorted(x + y)
    ties = [allv.count(v) for v in set(allv)]
    N = m + n
    var = m * n / 12 * ((N + 1) - sum(t**3 - t for t in ties) / (N * (N - 1)))
    u = u_stat(x, y)
    z_up = (u - m * n / 2 - 0.5) / math.sqrt(var)
    z_lo = (u - m * n / 2 + 0.5) / math.sqrt(var)
    return u, var, 1 - NormalDist().cdf(z_up), NormalDist().cdf(z_lo)


def moses_bounds(x, y, alpha):
    """Brute force: the smallest/largest shift not rejected by the exact one-sided test."""
    m, n = len(x), len(y)
    d = sorted(b - a for a in x for b in y)
    c = next(k for k in range(m * n + 2) if k > m * n or exact_upper(m, n, k) <= alpha)
    lo = d[m * n - c] if c <= m * n else -math.inf
    hi = d[c - 1] if c <= m * n else math.inf
    return lo, hi


if __name__ == "__main__":
    nd = NormalDist()
    print("normal quantiles (statistics.NormalDist.inv_cdf):")
    for p in [0.5, 0.975, 0.99, 0.995, 1e-10, 1e-300, 0.999999, 0.02425, 0.3]:
        print(f"  {p!r}: {nd.inv_cdf(p)!r}")
    print("normal cdf / upper (math.erfc):")
    for z in [-1.959963984540054, 0.0, 1.2345, 3.0]:
        print(f"  cdf({z!r}) = {0.5 * math.erfc(-z / math.sqrt(2))!r}")
    for z in [10.0, 37.0]:
        print(f"  upper({z!r}) = {0.5 * math.erfc(z / math.sqrt(2))!r}")

    # R's ?wilcox.test example (Hollander & Wolfe 1973, p. 69): W = 35, p = 0.1272.
    xr = [0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46]
    yr = [1.15, 0.88, 0.90, 0.74, 1.21]
    u = u_stat(yr, xr)
    print(f"hollander-wolfe: U = {u}, P(U >= U) = {exact_upper(5, 10, int(u))!r}")

    print("exact upper tails for m = n = 40 (exact integers):")
    for k in [800, 801, 1000, 1200, 1500, 1600]:
        print(f"  P(U >= {k}) = {exact_upper(40, 40, k)!r}")
    print(f"  P(U >= 1800) for m = n = 50 = {exact_upper(50, 50, 1800)!r}")

    x = [1.0, 2.0, 2.0, 3.0, 4.0]
    y = [2.0, 3.0, 3.0, 5.0, 6.0, 7.0]
    u, var, pg, pl = normal_mw(x, y)
    print(f"ties: U = {u}, var = {var!r}, p_greater = {pg!r}, p_less = {pl!r}")

    a = [10.1, 9.7, 10.4, 9.9, 10.0, 10.3, 9.8]
    b = [10.6, 10.2, 10.9, 10.5, 10.8, 10.35]
    d = sorted(bb - aa for aa in a for bb in b)
    hl = (d[len(d) // 2 - 1] + d[len(d) // 2]) / 2 if len(d) % 2 == 0 else d[len(d) // 2]
    print(f"shift: HL = {hl!r}")
    for alpha in [0.025, 0.05, 0.001]:
        print(f"  bounds({alpha}) = {moses_bounds(a, b, alpha)!r}")
