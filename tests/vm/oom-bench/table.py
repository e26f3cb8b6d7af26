#!/usr/bin/env python3
"""oom-bench's table: table.py RESULT.json... (one oombench.py RESULT per file), markdown."""
import json, sys


def pct(values, p):
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


def ms(value):
    return "–" if value is None else (f"{value:.0f}" if value >= 100 else f"{value:.1f}")


rows = []
for path in sys.argv[1:]:
    try:
        r = json.load(open(path))
    except (OSError, ValueError):
        continue
    eps = r["list"]
    n = len(eps)
    kills = sum(len(e["died"]) for e in eps)
    surplus = sum(len(e["surplus"]) for e in eps)
    kernel = sum(e["kernel_oom_kills"] for e in eps)
    unrelieved = sum(1 for e in eps if not e["relieved"])
    before = sum(1 for e in eps if e["relieved"] and not e["crossed"])
    relief = [e["relief_ms"] for e in eps if e["relief_ms"] is not None]
    grower = [e["grower_ms"] for e in eps if e.get("grower_ms") is not None]
    peak = [e["peak_mib"] for e in eps]
    victims = {}
    for e in eps:
        for name in e["died"]:
            victims[name] = victims.get(name, 0) + 1
    rows.append([
        r["label"], str(n), str(r["host_deaths"]), str(kernel),
        f"{kills} ({kills / n:.2f})" if n else "–", f"{surplus} ({surplus / n:.2f})" if n else "–",
        str(unrelieved), f"{ms(pct(relief, 50))} / {ms(pct(relief, 99))} / {ms(max(relief) if relief else None)}",
        f"{ms(pct(grower, 50))} / {ms(pct(grower, 99))}",
        str(before), f"{pct(peak, 50):.0f} / {max(peak):.0f}" if peak else "–",
        f"{r['tool_cpu_s']:.2f} ({1000 * r['tool_cpu_s'] / max(n, 1):.0f} ms)" if r.get("tool_cpu_s") is not None else "–",
        f"{(r.get('tool_rss_kib') or 0) / 1024:.1f} / {(r.get('tool_hwm_kib') or 0) / 1024:.1f}",
        f"{r['pid1_cpu_s']:.2f}" if r.get("pid1_cpu_s") is not None else "–",
        f"{r['phase_s']:.0f}",
        ", ".join(f"{k} {v}" for k, v in sorted(victims.items())),
    ])
header = ["tool", "episodes", "host deaths", "kernel OOM kills", "kills (per episode)",
          "surplus kills (per episode)", "unrelieved", "crossing→relief ms p50 / p99 / max", "crossing→grower dead ms p50 / p99",
          "relieved before a sample crossed", "peak tree MiB p50 / max", "tool CPU s (per episode)",
          "tool RSS / peak MiB", "PID 1 CPU s", "phase s", "victims"]
print("| " + " | ".join(header) + " |")
print("|" + "---|" * len(header))
for row in rows:
    print("| " + " | ".join(row) + " |")
