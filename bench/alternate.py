"""Runs commands in alternation and measures each run of each from its own resource usage.

Used by bench/tricks.mjs. Reads one JSON object on stdin: {"rounds": N, "cwd": DIR,
"env": {...}, "variants": [{"name": ..., "argv": [...]}, ...]}. Each round runs every
variant once, starting one further along each round, so that a slow spell of a shared
machine lands on every variant alike. Writes {"name": {"cpu_ms": [...], "wall_ms": [...],
"peak_kb": [...]}} as JSON on stdout.

CPU time comes from wait4's rusage of the child: microseconds, where GNU time prints
centiseconds (too coarse for differences of a few milliseconds).
"""

import json
import os
import subprocess
import sys
import time

spec = json.load(sys.stdin)
variants = spec["variants"]
results = {v["name"]: {"cpu_ms": [], "wall_ms": [], "peak_kb": []} for v in variants}
for round_ in range(spec["rounds"]):
    for k in range(len(variants)):
        variant = variants[(round_ + k) % len(variants)]
        start = time.perf_counter()
        child = subprocess.Popen(
            variant["argv"],
            cwd=spec["cwd"],
            env=spec["env"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        code = os.waitstatus_to_exitcode(status)
        if code not in (0, 1):
            sys.exit(f"{variant['name']}: exit {code}")
        entry = results[variant["name"]]
        entry["cpu_ms"].append((usage.ru_utime + usage.ru_stime) * 1000)
        entry["wall_ms"].append(wall * 1000)
        entry["peak_kb"].append(usage.ru_maxrss)
json.dump(results, sys.stdout)
