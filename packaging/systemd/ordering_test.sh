#!/usr/bin/env bash
# The boot order of tuner's units beside Debian 12's tuned.service and
# NetworkManager.service (captured in tests/fixtures/units) and systemd 252's network
# targets: no ordering cycle (systemd would break one by dropping a job), tuned's
# profile followed by tuner-after-tuned.service, tuner-restore.service before
# NetworkManager and network.target, provisioning after tuned. It also proves that it
# finds the cycle the obvious fix would make (After=tuned.service on
# tuner-restore.service), that tuner-after-tuned.service runs with restore's sandbox, and
# that every unit's errors reach the journal (StandardError= unset inherits StandardOutput=).
#   ordering_test.sh   (CTest package/unit-ordering; no root, no systemd needed)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
exec python3 - "$here" "$here/../../tests/fixtures/units" <<'PY'
import collections, re, sys
units_dir, captured = sys.argv[1], sys.argv[2]

def parse(path):
    sections, cur = collections.defaultdict(list), None
    for line in open(path):
        line = line.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("["):
            cur = line.strip("[]")
            continue
        key, _, value = line.partition("=")
        sections[cur].append((key.strip(), value.strip()))
    return sections

units = {}
for name in ["tuner-restore.service", "tuner-after-tuned.service", "tuner-provision.service",
             "tuner-status.service"]:
    units[name] = parse(f"{units_dir}/{name}")
for name in ["tuned.service", "NetworkManager.service"]:
    units[name] = parse(f"{captured}/{name}")
# systemd 252's own (/lib/systemd/system): network.target After=network-pre.target,
# network-online.target After=network.target.
units["network.target"] = {"Unit": [("After", "network-pre.target")]}
units["network-online.target"] = {"Unit": [("After", "network.target")]}

def edges(units):
    e = collections.defaultdict(set)  # a -> b: a starts before b
    for name, s in units.items():
        for key, value in s.get("Unit", []):
            for other in value.split():
                if key == "After":
                    e[other].add(name)
                elif key == "Before":
                    e[name].add(other)
    return e

def cycle(e):
    state = {}
    def visit(n, path):
        state[n] = 1
        for m in e.get(n, ()):
            if state.get(m) == 1:
                return path + [n, m]
            if m not in state:
                found = visit(m, path + [n])
                if found:
                    return found
        state[n] = 2
    for n in list(e):
        if n not in state:
            found = visit(n, [])
            if found:
                return found
    return None

def before(e, a, b):
    seen, todo = set(), [a]
    while todo:
        n = todo.pop()
        for m in e.get(n, ()):
            if m == b:
                return True
            if m not in seen:
                seen.add(m)
                todo.append(m)
    return False

fails = []
e = edges(units)
if (c := cycle(e)):
    fails.append("ordering cycle: " + " -> ".join(c))
for a, b in [("tuner-restore.service", "network.target"),
             ("tuner-restore.service", "NetworkManager.service"),
             ("tuner-restore.service", "tuned.service"),
             ("tuned.service", "tuner-after-tuned.service"),
             ("tuned.service", "tuner-provision.service"),
             ("tuner-after-tuned.service", "tuner-provision.service"),
             ("tuner-after-tuned.service", "tuner-status.service")]:
    if not before(e, a, b):
        fails.append(f"{a} is not ordered before {b}")

naive = {k: dict(v) for k, v in units.items()}
naive["tuner-restore.service"] = dict(units["tuner-restore.service"])
naive["tuner-restore.service"]["Unit"] = units["tuner-restore.service"]["Unit"] + [
    ("After", "tuned.service")]
if not cycle(edges(naive)):
    fails.append("After=tuned.service on tuner-restore.service shows no cycle: the check is blind")

after = units["tuner-after-tuned.service"]
if after["Service"] != units["tuner-restore.service"]["Service"]:
    fails.append("tuner-after-tuned.service's [Service] differs from tuner-restore.service's")
if ("WantedBy", "tuned.service") not in after["Install"]:
    fails.append("tuner-after-tuned.service is not WantedBy=tuned.service")
deps = [k for k, _ in after["Unit"] if k in ("Requires", "Wants", "BindsTo", "Requisite")]
if deps:
    fails.append("tuner-after-tuned.service must only order itself after tuned: " + ", ".join(deps))

for name in ["tuner-restore.service", "tuner-after-tuned.service", "tuner-provision.service",
             "tuner-status.service"]:
    service = dict(units[name]["Service"])
    out = service.get("StandardOutput", "journal")
    err = service.get("StandardError", "inherit")
    if (out if err == "inherit" else err) != "journal":
        fails.append(f"{name}: stderr goes to {out if err == 'inherit' else err}, not the journal")

for f in fails:
    print("FAIL: package/unit-ordering:", f)
if fails:
    sys.exit(1)
print("ok: package/unit-ordering")
PY
