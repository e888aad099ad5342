#!/usr/bin/env python3
"""Mutation test of fabricsim's input handling (issue #18's experiment, repeatable).

Takes every shipped scenario (scenarios/*.yaml), makes N mutants of each (a key deleted,
duplicated into a list, retyped, made huge, negative, NaN or zero, or its unit mangled),
runs `fabricsim validate` on each and, when it validates, a short `fabricsim run` under a
wall-clock limit, and tallies the outcomes:

  validate-0 / validate-2         validate's exit code (anything else is a bug)
  run-0 / run-2 / run-3           run's exit code after validate said ok
  run-1 (internal error), run-signal (a crash), run-timeout (ran past the limit),
  run-bad_alloc: bugs; each is listed with its mutant file and last line of output.

Usage:
  tools/mutate_scenarios.py --binary build/fabricsim --mutants 300 --seed 1 \
      [--timeout 20] [--keep DIR] [--max-memory 4GiB]

Mutants are written next to their scenario's folder copy in a temporary folder (so relative
includes and CDF files still resolve); --keep keeps the folder and writes the failures there.
Standard library and PyYAML only.
"""
import argparse
import collections
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile

import yaml

HUGE_VALUES = [
    "9223372036854775807ps", "9223372036854775807", "1e300", "99999999999999PiB", "8191PiB",
    "2PiB", "1000000000s", "1000001s", "10000000km", "1000Pbps", "4294967296", "2147483648",
    "65536", "1000000", "1048577", "2048", "16TiB", "1TiB", "100000s",
]
ODD_VALUES = [
    "-1", "-1MiB", "-5us", ".nan", "nan", ".inf", "-.inf", "0", "0B", "0s", "0bps", "0m",
    "", "~", "[]", "{}", "[1, 2]", "true", "1.5", "0.0001", "1bps", "100bps", "100Mbps",
    "1ps", "1B", "1mm", "3000km", "1s", "/proc/self/status", "/dev/zero",
]
UNIT_SWAPS = [("GiB", "Gbps"), ("MiB", "ms"), ("us", "B"), ("Gbps", "GB"), ("ns", "ps"),
              ("m", "km"), ("KiB", "PiB"), ("MiB", "PiB"), ("us", "s"), ("ms", "s")]


def paths(node, prefix=()):
    """Every (path, value) of a loaded YAML document: mappings by key, lists by index."""
    yield prefix, node
    if isinstance(node, dict):
        for k, v in node.items():
            yield from paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from paths(v, prefix + (i,))


def get_parent(doc, path):
    node = doc
    for p in path[:-1]:
        node = node[p]
    return node


def scalar_text(value):
    return yaml.safe_load(value) if value not in ("", "[]", "{}", "[1, 2]") else \
        {"": "", "[]": [], "{}": {}, "[1, 2]": [1, 2]}[value]


KINDS = ["delete", "duplicate", "retype", "huge", "odd", "unit", "scale"]


def mutate(doc, rng, kinds=KINDS):
    """One mutation, in place; returns a description."""
    candidates = [(p, v) for p, v in paths(doc) if p and p[0] not in ("name", "variants")]
    path, value = rng.choice(candidates)
    parent = get_parent(doc, path)
    key = path[-1]
    kind = rng.choice(kinds)
    where = ".".join(str(p) for p in path)
    if kind == "delete":
        del parent[key]
        return f"delete {where}"
    if kind == "duplicate":
        parent[key] = [value, value]
        return f"duplicate {where}"
    if kind == "retype":
        parent[key] = rng.choice([{"x": value}, [value], str(value) + "x", 7, True])
        return f"retype {where}"
    if kind == "huge":
        v = rng.choice(HUGE_VALUES)
        parent[key] = scalar_text(v) if v[0].isdigit() and v.isdigit() else v
        return f"huge {where}={v}"
    if kind == "odd":
        v = rng.choice(ODD_VALUES)
        parent[key] = scalar_text(v) if v in ("", "~", "[]", "{}", "[1, 2]", "true", ".nan", ".inf", "-.inf") else v
        return f"odd {where}={v}"
    if kind == "unit" and isinstance(value, str):
        for a, b in rng.sample(UNIT_SWAPS, len(UNIT_SWAPS)):
            if value.endswith(a):
                parent[key] = value[: -len(a)] + b
                return f"unit {where}={parent[key]}"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        parent[key] = value * rng.choice([10**6, 10**9, 10**12, -1, 2**31])
        return f"scale {where}={parent[key]}"
    if isinstance(value, str) and value[:1].isdigit():
        digits = "".join(c for c in value if c.isdigit() or c == ".")
        unit = value[len(digits):]
        parent[key] = digits + rng.choice(["000000", "000000000", "000000000000"]) + unit
        return f"scale {where}={parent[key]}"
    del parent[key]
    return f"delete {where}"


def run(cmd, timeout, address_space_mb):
    def limit():  # in the child: a run that outgrows this gets std::bad_alloc, not the OOM killer
        if address_space_mb:
            size = address_space_mb << 20
            resource.setrlimit(resource.RLIMIT_AS, (size, size))
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout, preexec_fn=limit)
        out = p.stdout.decode("utf-8", "replace")
        return p.returncode, out
    except subprocess.TimeoutExpired:
        return "timeout", ""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default="build/fabricsim")
    ap.add_argument("--scenarios", default="scenarios")
    ap.add_argument("--mutants", type=int, default=300, help="mutants in all")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=20, help="wall seconds per run")
    ap.add_argument("--stop-time", default="20ms", help="simulation.stop_time of each run")
    ap.add_argument("--max-memory", default="4GiB", help="passed to run; '' for a binary without the option")
    ap.add_argument("--address-space-mb", type=int, default=6144,
                    help="RLIMIT_AS of each fabricsim process, so that no mutant takes the machine's memory")
    ap.add_argument("--keep", help="keep mutants and failures in this folder")
    ap.add_argument("--kinds", default=",".join(KINDS), help="mutations to draw from: " + ",".join(KINDS))
    args = ap.parse_args()
    kinds = args.kinds.split(",")

    rng = random.Random(args.seed)
    binary = os.path.abspath(args.binary)
    sources = sorted(os.path.join(args.scenarios, f) for f in os.listdir(args.scenarios) if f.endswith(".yaml"))
    work = args.keep or tempfile.mkdtemp(prefix="fabricsim-mutants-")
    os.makedirs(work, exist_ok=True)
    # A copy of the scenarios folder, so relative names in mutants resolve as in the original.
    shadow = os.path.join(work, "scenarios")
    shutil.rmtree(shadow, ignore_errors=True)
    shutil.copytree(args.scenarios, shadow)

    tally = collections.Counter()
    bugs = []
    outcomes = []  # (mutant, mutation, outcome): outcomes.tsv in --keep's folder
    for i in range(args.mutants):
        src = sources[i % len(sources)]
        with open(src) as f:
            doc = yaml.safe_load(f)
        what = mutate(doc, rng, kinds)
        if rng.random() < 0.3:  # a second mutation now and then
            try:
                what += "; " + mutate(doc, rng, kinds)
            except (KeyError, IndexError, TypeError):
                pass
        name = os.path.join(shadow, f"mutant-{i:04d}-{os.path.basename(src)}")
        with open(name, "w") as f:
            f.write(f"# {src}: {what}\n")
            yaml.safe_dump(doc, f, sort_keys=False)
        code, out = run([binary, "validate", name], args.timeout, args.address_space_mb)
        tally[f"validate-{code}"] += 1
        outcomes.append([os.path.basename(name), what, f"validate-{code}", out.strip().splitlines()[:1]])
        if code not in (0, 2):
            bugs.append((name, what, f"validate {code}", out.strip().splitlines()[-1:] or [""]))
            continue
        if code != 0:
            continue
        out_dir = os.path.join(work, "out", str(i))
        memory = ["--max-memory", args.max_memory] if args.max_memory else []
        code, out = run([binary, "run", name, "--quiet", "--out", out_dir, *memory,
                         "--set", f"simulation.stop_time={args.stop_time}"], args.timeout, args.address_space_mb)
        shutil.rmtree(out_dir, ignore_errors=True)
        if code == 1 and "bad_alloc" in out:
            code = "bad_alloc"
        elif isinstance(code, int) and code < 0:
            code = "signal"
        tally[f"run-{code}"] += 1
        outcomes[-1][2] = f"run-{code}"
        outcomes[-1][3] = out.strip().splitlines()[:1]
        if code not in (0, 2, 3):
            bugs.append((name, what, f"run {code}", out.strip().splitlines()[-1:] or [""]))

    print("tally:", ", ".join(f"{k} {v}" for k, v in sorted(tally.items(), key=lambda kv: str(kv[0]))))
    for name, what, outcome, last in bugs:
        print(f"BUG {outcome}: {name}: {what}: {last[0][:300]}")
    if args.keep:
        with open(os.path.join(work, "outcomes.tsv"), "w") as f:
            for name, what, outcome, first in outcomes:
                f.write(f"{name}\t{what}\t{outcome}\t{(first or [''])[0][:300]}\n")
    else:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if bugs else 0


if __name__ == "__main__":
    sys.exit(main())
