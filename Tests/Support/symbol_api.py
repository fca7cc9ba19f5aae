#!/usr/bin/env python3
"""Reduces a Swift symbol graph (swift-symbolgraph-extract / -emit-symbol-graph JSON) to a
sorted list of public declarations, one per line, so two modules' APIs can be compared as text.

Usage: symbol_api.py GRAPH.symbols.json [--only NAME ...]

Lines (tab-separated):
  decl    <path>  <kind>  <access>  <declaration>
  conforms <path> <protocol>
  inherits <path> <class>

<path> is the symbol's path with its label signature (UNNotificationAttachment.init(identifier:url:options:)),
<declaration> the declaration fragments as the compiler prints them (attributes such as
@MainActor, nonisolated, convenience, override, throws, @Sendable included; availability
attributes are not part of them). Names and argument labels starting with an underscore are
left out (Foundation's bridging hooks: _nsError, _nsErrorDomain, init(_nsError:)), as is
SendableMetatype (implied by Sendable). --only keeps the top-level names given and their members.
"""
import json
import re
import sys

UNDERSCORED_LABEL = re.compile(r"[(:]_[A-Za-z]")


def reduce(graph, only=None):
    symbols = {s["identifier"]["precise"]: s for s in graph["symbols"]}
    lines = set()

    def path(s):
        return ".".join(s["pathComponents"])

    def wanted(s):
        components = s["pathComponents"]
        if any(c.startswith("_") or UNDERSCORED_LABEL.search(c) for c in components):
            return False
        return only is None or components[0] in only

    for s in graph["symbols"]:
        if not wanted(s) or s.get("accessLevel") not in ("public", "open"):
            continue
        declaration = "".join(f["spelling"] for f in s.get("declarationFragments", []))
        lines.add("\t".join(["decl", path(s), s["kind"]["identifier"], s["accessLevel"], " ".join(declaration.split())]))
    for r in graph["relationships"]:
        if r["kind"] not in ("conformsTo", "inheritsFrom"):
            continue
        source = symbols.get(r["source"])
        if source is None or not wanted(source):
            continue
        target = symbols.get(r["target"])
        name = path(target) if target else r.get("targetFallback", r["target"])
        name = name.split(".")[-1] if "." in name else name
        if name.startswith("_") or name == "SendableMetatype":
            continue
        kind = "conforms" if r["kind"] == "conformsTo" else "inherits"
        lines.add("\t".join([kind, path(source), name]))
    return sorted(lines)


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    only = None
    if "--only" in argv:
        i = argv.index("--only")
        only = set(argv[i + 1:])
        argv = argv[:i]
    with open(argv[1]) as f:
        graph = json.load(f)
    for line in reduce(graph, only):
        print(line)


if __name__ == "__main__":
    main(sys.argv)
