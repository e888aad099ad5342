#!/usr/bin/env python3
"""The JSON Schema of `fabricsim docs --json-schema` checked as an editor uses it.

An editor that takes the schema (VS Code's YAML extension, docs/SCENARIO.md) must not flag a
scenario that fabricsim loads, and should flag the common mistakes fabricsim refuses. So:
  1. every shipped scenario (scenarios/, bench/, tests/scenario/good/) that `fabricsim validate`
     accepts, and each of its variants as `validate --print` writes them, has no schema error;
  2. each value in REFUSED (with --set) and REFUSED_IN_FILE (in a copy of the file), set in
     scenarios/quickstart.yaml, is refused by the loader (exit 2) and has a schema error at its
     own path (an unknown key: at its mapping, naming it).
Validated with python3-jsonschema (Draft 7, the schema's $schema) on YAML 1.2 booleans, as
yaml-cpp and the editor read them. Exit 77 (ctest: skipped) without python3-jsonschema or
python3-yaml (tools/install-deps.sh installs both). Run by ctest as "docs: the JSON Schema ...".

    tools/check_json_schema.py FABRICSIM
"""
import copy
import json
import pathlib
import re
import subprocess
import sys
import tempfile

try:
    import jsonschema
    import yaml
except ImportError as e:
    print(f"{e.name} is not installed: skipped", file=sys.stderr)
    sys.exit(77)

# (key path, YAML value): each a mistake the loader refuses with exit 2.
REFUSED = [
    ("cluster.server.nic.line_rate", "400G"),  # no unit
    ("cluster.fabric.link_speed", "400Gb"),  # a size, not a rate
    ("cluster.roce.pfc.xoff", "100"),  # a bare number other than 0
    ("cluster.roce.pfc.watchdog", "of"),  # neither `off` nor a time
    ("cluster.roce.ecn.kmin", "100 KiBs"),  # no such unit
    ("cluster.roce.dcqcn.g", "aut"),  # neither `auto` nor a number
    ("cluster.roce.dcqcn.clamp_target_rate", "yes"),  # YAML 1.2: a string, not a boolean
    ("cluster.roce.mmu.alpha", "1//8"),  # not a fraction
    ("cluster.server", "hgx h100"),  # not a preset name
    ("cluster.fabric.cable_length", "3"),  # a length needs its unit
    ("simulation.model", "fluid"),  # not a model
    ("workload.0.size", "256M"),  # a collective's size without its unit
    ("workload.0.iterationz", "3"),  # a misspelt key
    ("workload.0.collective", "allreduce"),  # not a collective
    ("workload.1.load", "0.5"),  # a poisson key on an incast
    ("workload.1.traffic", "incst"),  # not a traffic pattern
]
# The same for what --set cannot write, set in a copy of the file.
REFUSED_IN_FILE = [
    ("variants.a b", "{}"),  # not a variant name
    ("variants.roce", "3"),  # not a mapping of overrides
]


class Yaml12Loader(yaml.SafeLoader):
    """PyYAML reads YAML 1.1, where on/off/yes/no are booleans; YAML 1.2 keeps only true/false."""


Yaml12Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:bool"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
Yaml12Loader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)


def documents(text):
    return [d for d in yaml.load_all(text, Loader=Yaml12Loader) if d is not None]


def errors(validator, doc):
    return [(".".join(str(p) for p in e.absolute_path), e.message) for e in validator.iter_errors(doc)]


def set_path(doc, dotted, value):
    at = doc
    keys = [int(k) if k.isdigit() else k for k in dotted.split(".")]
    for k in keys[:-1]:
        if isinstance(at, list):
            at = at[k]
            continue
        if isinstance(at.get(k), str):  # a preset's name stands for {preset: name}
            at[k] = {"preset": at[k]}
        at = at.setdefault(k, {})
    at[keys[-1]] = value


def errors_at(validator, doc, key):
    """The schema's errors at `key`, or at its mapping naming it (an unknown key)."""
    parent, _, leaf = key.rpartition(".")
    return [m for p, m in errors(validator, doc) if p == key or (p == parent and f"'{leaf}'" in m)]


def main():
    if len(sys.argv) != 2:
        print(f"usage: {sys.argv[0]} FABRICSIM", file=sys.stderr)
        return 2
    fabricsim = sys.argv[1]
    run = lambda *args: subprocess.run([fabricsim, *args], capture_output=True, text=True)
    validator = jsonschema.Draft7Validator(json.loads(run("docs", "--json-schema").stdout))
    failed = 0

    files = sorted(
        p for folder in ("scenarios", "bench", "tests/scenario/good") for p in pathlib.Path(folder).rglob("*.yaml")
    )
    checked = 0
    for f in files:
        if run("validate", str(f)).returncode != 0:
            continue  # an include part, a sweep of its own or a file for another config folder
        printed = run("validate", "--print", str(f)).stdout
        for what, doc in [(str(f), d) for d in documents(f.read_text())] + [
            (f"{f} as printed", d) for d in documents(printed)
        ]:
            checked += 1
            for path, message in errors(validator, doc):
                print(f"FAIL {what}: {path}: {message}")
                failed += 1
    print(f"{checked} documents from {len(files)} files: {failed} schema errors")

    base = documents(pathlib.Path("scenarios/quickstart.yaml").read_text())[0]
    for key, text in REFUSED + REFUSED_IN_FILE:
        doc = copy.deepcopy(base)
        set_path(doc, key, yaml.load(text, Loader=Yaml12Loader))
        if (key, text) in REFUSED:
            loader = run("validate", "scenarios/quickstart.yaml", "--set", f"{key}={text}")
        else:
            with tempfile.NamedTemporaryFile("w", suffix=".yaml") as f:
                yaml.safe_dump(doc, f)
                f.flush()
                loader = run("validate", f.name)
        found = errors_at(validator, doc, key)
        ok = loader.returncode == 2 and found
        shown = "; ".join(m[:90] for m in found) or "no error"
        print(f"{'ok  ' if ok else 'FAIL'} {key}: {text!r}: loader exit {loader.returncode}, schema: {shown}")
        failed += not ok
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
