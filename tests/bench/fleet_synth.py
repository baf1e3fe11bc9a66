#!/usr/bin/env python3
"""Writes a synthetic fleet's reports, shaped as the canary playbook leaves them, for
`tuner report` (docs/fleet-report.md shows its summary):

    fleet_synth.py DIR N [PROBE.json]

N nodes gpu-0000.. (gpu-00000.. from 10,000), each NODE.run.json (tuner.run/1) and
NODE.status.json (tuner.status/1); the node facts are PROBE.json's (tuner probe --json)
or a made-up DGX-like set. 3% of the nodes (at least 30) ran the latency profile; one
node in 32 is on another kernel with its NIC driver (10 NICs); 3 have an older BIOS; 11
runs were rolled back by a refused sysctl and 3 nodes failed before their run (bad
profile: NODE.error.json alone); 12 nodes drifted, 2 have an unfinished run.
"""
import json
import os
import sys


def main():
    d, n = sys.argv[1], int(sys.argv[2])
    os.makedirs(d, exist_ok=True)
    width = 5 if n >= 10000 else 4
    if len(sys.argv) > 3:
        base = json.load(open(sys.argv[3]))["node"]
    else:
        base = {"kernel": "6.1.0-18-amd64", "cpu_model": "Intel(R) Xeon(R) Platinum 8480+",
                "microcode": "0x2b0004b1", "microcode.vulnerable": "none",
                "bios_vendor": "American Megatrends", "bios_version": "1.7.1",
                "system_vendor": "NVIDIA", "system_product": "DGXH100",
                "nvidia_driver": "550.54.15"}
    nics = ["enp%ds0f%dnp%d" % (k // 2 + 1, k % 2, k % 2) for k in range(10)]
    latency = max(30, n * 3 // 100)
    refused = {(i * 37 + 5) % n for i in range(11)}
    no_run = {(i * 53 + 11) % n for i in range(3)} - refused
    drifted = {(i * 29 + 3) % n for i in range(12)}
    unfinished = {(i * 41 + 7) % n for i in range(2)}
    for i in range(n):
        node = "gpu-%0*d" % (width, i)
        facts = dict(base, hostname=node)
        other_kernel = i % 32 == 7
        if other_kernel:
            facts["kernel"] = "6.8.0-31-generic"
        for nic in nics:
            facts["nic.%s.driver" % nic] = "mlx5_core"
            facts["nic.%s.driver_version" % nic] = "24.10-1.1.4" if other_kernel else "23.10-0.5.5"
            facts["nic.%s.firmware_version" % nic] = "28.39.1002 (MT_0000000838)"
        if i in (17, n // 2 - 58, n - 97):
            facts["bios_version"] = "1.5.0"
        run_id = "20261201T1015%02dZ-%04x" % (i % 60, i)
        profile = "latency" if i >= n - latency else "network-throughput"
        if i in no_run:
            json.dump({"schema": "tuner.failure/1", "node": node, "rc": 2,
                       "task": "Apply the profiles", "time": "2026-12-01T10:16:00Z",
                       "run_id": None,
                       "msg": "tuner: apply: profile network-throughput: "
                              "/etc/tuner/profiles/site.toml:12:9: unknown key 'net.core.rmem_maxx'"},
                      open("%s/%s.error.json" % (d, node), "w"), indent=2)
            continue
        groups = [("queues", "kept"), ("sysctl", "kept"), ("irq", "kept")]
        if profile == "latency":
            groups = [("cpu", "kept"), ("irq", "kept")]
        elif i % 10 == 0:
            groups[0] = ("queues", "rolled_back")
        errors = []
        if i in refused:
            groups[1] = ("sysctl", "rolled_back")
            errors = [{"message": "sysctl:net.ipv4.tcp_rmem: write /proc/sys/net/ipv4/tcp_rmem: "
                                  "Invalid argument", "knob": "sysctl:net.ipv4.tcp_rmem"}]
            json.dump({"schema": "tuner.failure/1", "node": node, "rc": 1,
                       "task": "Apply the profiles", "time": "2026-12-01T10:16:00Z",
                       "run_id": run_id, "msg": errors[0]["message"]},
                      open("%s/%s.error.json" % (d, node), "w"), indent=2)
        changes = [{"knob": "sysctl:net.core.somaxconn", "before": "4096", "after": "8192",
                    "status": "applied"}] * 3
        doc = {"schema": "tuner.run/1", "run_id": run_id, "time": "2026-12-01T10:15:59Z",
               "changed": True, "profiles": [profile],
               "groups": [{"name": g, "decision": dec, "changes": changes,
                           "stats": {"bench": "tcp", "effect": 0.03, "ci": [0.01, 0.05],
                                     "p": 0.01}} for g, dec in groups],
               "errors": errors, "warnings": [], "node": facts}
        json.dump(doc, open("%s/%s.run.json" % (d, node), "w"), indent=2)
        knobs = []
        for knob, kept in [("sysctl:net.core.somaxconn", "8192"),
                           ("sysctl:net.ipv4.tcp_rmem", "4096 131072 67108864"),
                           ("irq:57", "3")]:
            drift = i in drifted and knob != "irq:57"
            live = "4096" if drift else kept
            knobs.append({"knob": knob, "kept": kept, "before": "4096", "run_id": run_id,
                          "group": "sysctl", "drift": drift,
                          "state": "changed" if drift else "ok", "live": live})
        json.dump({"schema": "tuner.status/1", "knobs": knobs,
                   "drift": sum(k["drift"] for k in knobs),
                   "unfinished_run": run_id if i in unfinished else None},
                  open("%s/%s.status.json" % (d, node), "w"), indent=2)


if __name__ == "__main__":
    main()
