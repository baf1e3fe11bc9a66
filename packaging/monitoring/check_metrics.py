#!/usr/bin/env python3
"""Every PromQL expression of the dashboard and the rule file names only metrics that
tuner exports or node_exporter's that node-exporter-metrics.txt lists.

  check_metrics.py SOURCE_DIR [FILE...]   (default: tuner-dashboard.json, tuner.rules.yml)

tuner's names come from its source, every "tuner_..." string in
tuner/cli/report/prometheus.cc, so the list is never kept by hand. With --exprs OUT it
also writes each expression, Grafana's variables replaced, as a rule file for promtool
check rules. Python's standard library only."""
import json
import re
import sys
from pathlib import Path

KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "offset", "bool",
            "and", "or", "unless", "inf", "nan", "atan2"}
TOKEN = re.compile(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'|`[^`]*`'  # strings
                   r'|\$\{[^}]*\}|\$\w+'                                # Grafana variables
                   r'|\d[\w.]*(?:[eE][+-]?\d+)?'                        # numbers, durations
                   r'|[A-Za-z_:][\w:]*'                                 # identifiers
                   r'|\S', re.S)


def metric_names(expr):
    """The metric names an expression selects."""
    # Label lists, which name labels, not metrics; then what stands inside {} matchers.
    expr = re.sub(r'\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)', ' ', expr)
    expr = re.sub(r'\{[^}]*\}', '', expr)
    # label_values(metric, label): the second argument is a label.
    expr = re.sub(r'label_values\(\s*([\w:]+)\s*,\s*\w+\s*\)', r'(\1)', expr)
    tokens = TOKEN.findall(expr)
    names = set()
    for i, tok in enumerate(tokens):
        if not re.fullmatch(r'[A-Za-z_:][\w:]*', tok) or tok in KEYWORDS:
            continue
        if i + 1 < len(tokens) and tokens[i + 1] == '(':
            continue  # a function or an aggregation
        names.add(tok)
    return names


def dashboard_exprs(path):
    out = []

    def walk(node):
        if isinstance(node, dict):
            for k, v in node.items():
                if k == "expr" and isinstance(v, str):
                    out.append(v)
                elif k == "query" and isinstance(v, str) and "(" in v:
                    out.append(v)
                else:
                    walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(json.loads(Path(path).read_text()))
    return out


def rule_exprs(path):
    """The expr: values of a rule file as tuner.rules.yml writes them: on one line, or
    a block scalar (|) of the lines indented below it."""
    out, lines = [], Path(path).read_text().splitlines()
    i = 0
    while i < len(lines):
        m = re.match(r'^(\s*)(?:- )?expr:\s*(.*)$', lines[i])
        i += 1
        if not m:
            continue
        indent, rest = len(m.group(1)), m.group(2).strip()
        if rest not in ("|", "|-", ">", ">-"):
            out.append(rest.strip("'\""))
            continue
        block = []
        while i < len(lines) and (not lines[i].strip() or
                                  len(lines[i]) - len(lines[i].lstrip()) > indent):
            block.append(lines[i].strip())
            i += 1
        out.append("\n".join(block))
    return out


def main(argv):
    exprs_out = None
    if len(argv) > 2 and argv[1] == "--exprs":
        exprs_out = argv[2]
        argv = argv[:1] + argv[3:]
    src = Path(argv[1])
    here = Path(__file__).resolve().parent
    files = argv[2:] or [str(here / "tuner-dashboard.json"), str(here / "tuner.rules.yml")]
    tuner = set(re.findall(r'"(tuner_[a-z0-9_]+)"',
                           (src / "tuner/cli/report/prometheus.cc").read_text()))
    if len(tuner) < 10:
        print(f"check_metrics: found only {len(tuner)} tuner metrics in the source")
        return 1
    node = {line.strip() for line in (here / "node-exporter-metrics.txt").read_text().splitlines()
            if line.strip() and not line.startswith("#")}
    bad, all_exprs = [], []
    for f in files:
        exprs = dashboard_exprs(f) if f.endswith(".json") else rule_exprs(f)
        if not exprs:
            bad.append(f"{f}: no expressions found")
        for e in exprs:
            all_exprs.append(e)
            for name in sorted(metric_names(e) - tuner - node):
                bad.append(f"{f}: '{name}' is neither tuner's nor a listed node_exporter "
                           f"metric, in: {' '.join(e.split())}")
    for b in bad:
        print("check_metrics:", b)
    if exprs_out:
        with open(exprs_out, "w") as out:
            out.write("groups:\n  - name: exprs\n    rules:\n")
            for n, e in enumerate(all_exprs):
                if "label_values(" in e:
                    continue  # Grafana's, not PromQL
                e = e.replace("$__rate_interval", "5m").replace("$instance", ".*")
                out.write(f"      - record: expr_{n}\n        expr: {json.dumps(' '.join(e.split()))}\n")
    if not bad:
        print(f"check_metrics: {len(all_exprs)} expressions name only known metrics "
              f"({len(tuner)} of tuner's, {len(node)} of node_exporter's)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
