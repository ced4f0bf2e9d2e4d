#!/usr/bin/env python3
"""Write a vector for each (op, member, value class) triple no vector holds
(spec `runner.value-reach`, issue #59).

    VALUE_REACH_MISSING=/tmp/missing.tsv cargo test --test value_reach
    python3 conformance/tools/value-classes.py /tmp/missing.tsv [--skip FILE] [--record FILE]

`harness::runner::value_classes` defines the value classes; `tests/value_reach.rs`, with
`VALUE_REACH_MISSING` set, writes the missing triples there, one a line:
`OP<TAB>PATH<TAB>CLASS<TAB>TYPE` (a path writes an array's items `[]`, a
map's values `{}`). For each triple this tool takes a base vector of the op
whose input holds the member's parent (one expecting an output rather than
an error, of the plain rc.8 features, with the smallest input, preferred),
sets the member to a representative of the class (or leaves it out, for
`absent`), and appends the new vector to
`conformance/vectors/<area>/values.json` with `"expect": {"output": null}`.
Its expectation comes from the oracles afterwards
(`dsh-session-reference regen`, conformance/README.md), never from here.

`--skip FILE` names, one a line, an id not to write (`ID`), or a base not
to use for it (`ID BASE-ID`; nor any base of the same features): what the
oracles could not answer alike (`#` starts a comment;
`conformance/tools/value-classes.skip` is the list the suite was written
with). `--record FILE` writes each new vector's id
and its base's, one pair a line.

Standard library only. Vector files are read with `json.loads` (a lone
surrogate `\\ud800` stays a lone code point, member order is kept, and -0
keeps its sign) and
written with `json.dumps(ensure_ascii=True)`, which writes it back as the
same escape; `regen` then rewrites every file in the canonical form.
"""
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VECTORS = ROOT / "conformance" / "vectors"

# The features of the npm package 0.1.0-rc.8: a vector of just these runs on
# every oracle that has the op.
RC8 = {"uri", "mention", "json", "retain", "prepare", "pre-step", "config", "candidates", "files"}
# Our own decisions: no oracle answers a vector that needs them.
OURS = {"candidates-fuzzy", "config-fraction-type"}

AREAS = {
    "uri": "uri",
    "mention": "mention",
    "json": "json",
    "retain": "retain",
    "prepare": "prepare",
    "pre-step": "pre-step",
    "config": "config",
    "candidates": "candidates",
    "files": "files",
}

FILE_DESCRIPTIONS = {
    "uri": "value classes of the URI ops' typed members (runner.value-reach)",
    "mention": "value classes of the mention ops' typed members (runner.value-reach)",
    "retain": "value classes of retain's typed members (runner.value-reach)",
    "prepare": "value classes of prepare's typed members (runner.value-reach)",
    "pre-step": "value classes of the pre-step's typed members (runner.value-reach)",
    "config": "value classes of the configuration's typed members (runner.value-reach)",
    "candidates": "value classes of the candidate ops' typed members (runner.value-reach)",
    "files": "value classes of the file ops' typed members (runner.value-reach)",
}


def loads(text, **options):
    """`json.loads` keeping -0 (an integer -0 would read as 0)."""
    return json.loads(text, parse_int=lambda s: -0.0 if s == "-0" else int(s), **options)


def area_of(op):
    return AREAS[op.split("/")[0]]


def short_of(op):
    return op.split("/")[-1]


def syntax_of(op):
    """The op's own syntax (harness::runner::value_classes, class `syntax`)."""
    family = op.split("/")[0]
    return {
        "uri": "dsh-session:",
        "mention": "]\\",
        "files": '@"',
        "candidates": "\u0130",
    }.get(family, "<")


# What each string class inserts in the middle of the member's value.
STRING_INSERTS = {
    "ascii-whitespace": " ",
    "js-whitespace": "\u00a0",
    "line-separator": "\u2028",
    "delete": "\u007f",
    "c1-control": "\u0085",
    "combining": "e\u0301",
    "lone-surrogate": "\ud800",
    "astral": "\U0001f600",
    "escaped-elsewhere": "'<>&/",
}

PHRASES = {
    "null": "null",
    "absent": "left out",
    "other-type": "of another type",
    "zero": "0",
    "negative-zero": "-0",
    "negative": "negative",
    "fractional": "fractional",
    "wide-integer": "an integer from 1e16 below 1e21",
    "large-exponent": "1e21 or more",
    "unsafe-integer": "an integer beyond 2^53",
    "empty": "empty",
    "ascii-whitespace": "holding a space",
    "js-whitespace": "holding a no-break space",
    "line-separator": "holding U+2028",
    "delete": "holding U+007F",
    "c1-control": "holding U+0085",
    "combining": "holding a combining mark",
    "lone-surrogate": "holding a lone surrogate",
    "astral": "holding an astral character",
    "escaped-elsewhere": "holding ' < > & /",
    "syntax": "holding the op's syntax",
    "true": "true",
    "false": "false",
}


def parse_path(path):
    """`a.b[].c{}.d` as steps: ("m", name), ("items",), ("values",)."""
    steps = []
    for part in path.split("."):
        name = re.match(r"[^\[{]*", part).group(0)
        steps.append(("m", name))
        for suffix in re.findall(r"\[\]|\{\}", part[len(name):]):
            steps.append(("items",) if suffix == "[]" else ("values",))
    return steps


def slots(value, steps):
    """Where the last step applies below `value`: (container, step) pairs,
    the container an object (a member step) or an array (an items step)."""
    *parents, last = steps
    current = [value]
    for step in parents:
        following = []
        for node in current:
            if step[0] == "m":
                if isinstance(node, dict) and step[1] in node:
                    following.append(node[step[1]])
            elif step[0] == "items":
                if isinstance(node, list):
                    following.extend(node)
            elif isinstance(node, dict):
                following.extend(node.values())
        current = following
    wanted = dict if last[0] == "m" else list
    return [(node, last) for node in current if isinstance(node, wanted)]


def ordinary(value):
    """No number JSON cannot write back (an infinite one)."""
    if isinstance(value, float):
        return value == value and abs(value) != float("inf")
    if isinstance(value, list):
        return all(ordinary(item) for item in value)
    if isinstance(value, dict):
        return all(ordinary(item) for item in value.values())
    return True


def representative(cls, ty, op, old):
    """A value of class `cls` for a member of type `ty` now holding `old`
    (`None` when absent); `ABSENT` to leave it out."""
    if cls == "absent":
        return ABSENT
    if cls == "null":
        return None
    if cls == "true":
        return True
    if cls == "false":
        return False
    if cls == "other-type":
        if ty == "string":
            return 7
        if ty == "number":
            number = old if isinstance(old, (int, float)) and not isinstance(old, bool) else 1
            return json.dumps(number)
        return 1
    if ty == "number":
        base = old if isinstance(old, (int, float)) and not isinstance(old, bool) else 1
        return {
            "zero": 0,
            "negative-zero": -0.0,
            "negative": -abs(base) if base != 0 else -1,
            "fractional": (int(base) if abs(base) < 2 ** 52 else 1) + 0.5,
            "wide-integer": 10 ** 20,
            "large-exponent": 1e21,
            "unsafe-integer": 2 ** 53 + 2,
        }[cls]
    # Strings: the old value with the class's characters in its middle.
    text = old if isinstance(old, str) else "x"
    if cls == "empty":
        return ""
    insert = syntax_of(op) if cls == "syntax" else STRING_INSERTS[cls]
    middle = len(text) // 2
    return text[:middle] + insert + text[middle:]


class Absent:
    pass


ABSENT = Absent()


def kebab(name):
    return re.sub(r"([a-z0-9])([A-Z])", r"\1-\2", name).lower()


def vector_id(op, path, cls):
    words = [kebab(step[1]) for step in parse_path(path) if step[0] == "m"]
    return ".".join([area_of(op), "values", short_of(op), *words, cls])


def load_files():
    """Every vector file but the wire group's and the cost vectors': path,
    parsed file (`None` when its inputs repeat a member name)."""
    files = {}
    for path in sorted(VECTORS.glob("*/*.json")):
        if path.parent.name in ("wire", "cost"):
            continue
        repeated = []

        def pairs(items, repeated=repeated):
            names = [name for name, _ in items]
            if len(set(names)) != len(names):
                repeated.append(names)
            return dict(items)

        data = loads(path.read_text(encoding="utf-8"), object_pairs_hook=pairs)
        files[path] = (data, bool(repeated))
    return files


# A behaviour of `protocol.features` a member's value decides on: a vector
# of such a value names it (`tests/suite_sanity.rs`,
# `vectors_name_every_behaviour_they_depend_on`). Bases that name it are
# preferred; failing those, the best base with the behaviour named absent,
# then present, beside the base's features.
BEHAVIOURS = {
    "capturedThroughSeq": "seq-domain",
    "referenceContextFraction": "context-fraction",
    "candidates/remote subagentLabel": "remote-display-label",
}


def behaviour_of(op, path):
    name = parse_path(path)[-1][1] if parse_path(path)[-1][0] == "m" else ""
    return BEHAVIOURS.get(f"{op} {name}") or BEHAVIOURS.get(name)


def candidates(op, path, bases, steps):
    """(base, features, key) in preference order; `key` names the base and
    any behaviour added to its features (`BASE+!seq-domain`)."""
    holding = [base for base in bases if slots(base["input"], steps)]
    behaviour = behaviour_of(op, path)
    if behaviour is None:
        for base in holding:
            yield base, list(base["features"]), base["id"]
        return
    named = lambda base: any(f.lstrip("!") == behaviour for f in base["features"])
    for base in holding:
        if named(base):
            yield base, list(base["features"]), base["id"]
    for base in holding:
        if not named(base):
            for extra in ("!" + behaviour, behaviour):
                yield base, list(base["features"]) + [extra], f"{base['id']}+{extra}"


def avoided_features(avoid, op, path, bases):
    """The feature sets of the candidates named in `avoid`."""
    found = set()
    by_key = {}
    behaviour = behaviour_of(op, path)
    for base in bases.get(op, []):
        by_key[base["id"]] = tuple(base["features"])
        if behaviour:
            for extra in ("!" + behaviour, behaviour):
                by_key[f"{base['id']}+{extra}"] = tuple(base["features"]) + (extra,)
    for key in avoid:
        if key in by_key:
            found.add(by_key[key])
    return found


def base_order(vector):
    """Smaller is preferred."""
    features = vector["features"]
    plain = all(feature in RC8 for feature in features)
    output = "output" in vector["expect"]
    size = len(json.dumps(vector["input"]))
    return (not output, not plain, len(vector.get("requires", [])), size, vector["id"])


def main(argv):
    if not argv or argv[0].startswith("-"):
        sys.exit(__doc__)
    missing_file = Path(argv[0])
    options = dict(zip(argv[1::2], argv[2::2]))
    skip_file = Path(options["--skip"]) if "--skip" in options else None
    record_file = Path(options["--record"]) if "--record" in options else None
    skipped, avoided = set(), {}
    if skip_file and skip_file.exists():
        for line in skip_file.read_text(encoding="utf-8").splitlines():
            parts = line.split("#")[0].split()
            if len(parts) == 1:
                skipped.add(parts[0])
            elif len(parts) == 2:
                avoided.setdefault(parts[0], set()).add(parts[1])

    files = load_files()
    bases = {}
    existing_ids = set()
    for path, (data, repeated) in files.items():
        for vector in data.get("vectors", []):
            existing_ids.add(vector["id"])
            if repeated or path.name == "values.json":
                continue
            if OURS & set(vector["features"]) or not ordinary(vector["input"]):
                continue
            bases.setdefault(vector["op"], []).append(vector)
    for vectors in bases.values():
        vectors.sort(key=base_order)

    written = {}
    records = []
    uncovered = []
    for line in missing_file.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        op, path, cls, ty = line.split("\t")
        new_id = vector_id(op, path, cls)
        if new_id in existing_ids or new_id in skipped:
            if new_id in skipped:
                uncovered.append(f"{op} {path} {cls} (skipped: the oracles did not answer alike)")
            continue
        steps = parse_path(path)
        avoid = avoided.get(new_id, set())
        chosen = None
        avoid_features = avoided_features(avoid, op, path, bases)
        for base, features, key in candidates(op, path, bases.get(op, []), steps):
            if key in avoid or tuple(features) in avoid_features:
                continue
            chosen = base
            break
        if chosen is None:
            uncovered.append(f"{op} {path} {cls} (no base holds its parent)")
            continue
        data = loads(json.dumps(chosen["input"]))
        container, last = slots(data, steps)[0]
        if last[0] == "m":
            old = container.get(last[1])
            value = representative(cls, ty, op, old)
            if value is ABSENT:
                container.pop(last[1], None)
            else:
                container[last[1]] = value
        else:
            old = container[0] if container else None
            value = representative(cls, ty, op, old)
            if container:
                container[0] = value
            else:
                container.append(value)
        rules = ["protocol.input-types"] + [
            rule for rule in chosen["rules"] if rule not in ("protocol.input-types", "conformance.sides")
        ]
        description = f"{path} {PHRASES[cls]}, else as {chosen['id']}"
        if len(description) > 100:
            description = f"{path} {PHRASES[cls]}"
        vector = {
            "id": new_id,
            "rules": rules,
            "description": description,
            "op": op,
            "features": features,
            "input": data,
            "expect": {"output": None},
        }
        existing_ids.add(new_id)
        records.append(f"{new_id} {key}\n")
        written.setdefault(area_of(op), []).append(vector)

    for area, vectors in sorted(written.items()):
        target = VECTORS / area / "values.json"
        if target.exists():
            data = loads(target.read_text(encoding="utf-8"))
        else:
            data = {"description": FILE_DESCRIPTIONS[area], "vectors": []}
        data["vectors"].extend(vectors)
        target.write_text(json.dumps(data, ensure_ascii=True, indent=2) + "\n", encoding="utf-8")
        print(f"{target.relative_to(ROOT)}: {len(vectors)} vectors added")
    if record_file:
        record_file.write_text("".join(records), encoding="utf-8")
    for line in uncovered:
        print(f"not covered: {line}")


if __name__ == "__main__":
    main(sys.argv[1:])
