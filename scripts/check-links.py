#!/usr/bin/env python3
"""Checks every relative link of the project's Markdown files (README.md, the guides under docs/,
CHANGELOG.md, BENCHMARKS.md, Examples/, the DocC catalogs' articles): the file or folder it names
exists, and a `#fragment` names a heading of that file (GitHub's anchors: lower case, punctuation
dropped, spaces as hyphens, `-1`, `-2` … for repeated headings). And every guide docs/*.md is
linked from README.md, where the guides start.

Links inside code (fenced blocks, `inline code`) are not links. Links to other sites (http, https,
mailto) are not fetched: CI has no network. DocC's own links (<doc:…>, ``Symbol``) are checked by
`docc convert` in scripts/docs.sh.

Usage: python3 scripts/check-links.py [FILE.md …]   (default: every Markdown file git tracks)
Exit status 0 when every link resolves, 1 with one line per broken link (file:line: what).
"""
import os
import re
import subprocess
import sys
import unicodedata

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Guides written on other branches of issue 23's work, linked from README.md before they are
# merged. A link to one of these that does not exist yet is reported as pending (not as broken);
# once the file exists it is checked like any other. Remove a name when its branch is on main.
PENDING: set[str] = set()

LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")


def markdown_files():
    out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", "*.md"],
                         cwd=ROOT, check=True, capture_output=True).stdout.decode()
    return sorted(p for p in out.split("\0") if p and os.path.exists(os.path.join(ROOT, p)))


def prose_lines(text):
    """(line number, line) outside fenced code, with inline code spans blanked."""
    fence = None
    for number, line in enumerate(text.split("\n"), 1):
        m = FENCE.match(line)
        if m:
            mark = m.group(1)
            if fence is None:
                fence = mark[0] * 3
                continue
            if mark.startswith(fence):
                fence = None
                continue
        if fence is not None:
            continue
        yield number, re.sub(r"(`+)(?:(?!\1).)+\1", lambda c: " " * len(c.group(0)), line)


def slug(heading):
    """GitHub's anchor for a heading's text."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text
    text = re.sub(r"<[^>]+>", "", text).lower()
    kept = []
    for ch in text:
        if ch in " -_" or unicodedata.category(ch)[0] in "LN":
            kept.append("-" if ch == " " else ch)
    return "".join(kept)


anchor_cache = {}


def anchors(path):
    if path not in anchor_cache:
        seen, result = {}, set()
        with open(path, encoding="utf-8") as f:
            text = f.read()
        fence = None
        for line in text.split("\n"):
            m = FENCE.match(line)
            if m:
                fence = None if fence else m.group(1)[0]
                continue
            if fence:
                continue
            h = HEADING.match(line)
            if h:
                base = slug(h.group(2))
                n = seen.get(base, 0)
                seen[base] = n + 1
                result.add(base if n == 0 else "%s-%d" % (base, n))
        result.update(re.findall(r"<a\s+(?:name|id)=\"([^\"]+)\"", text))
        anchor_cache[path] = result
    return anchor_cache[path]


def check(rel):
    problems, pending = [], []
    path = os.path.join(ROOT, rel)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    for number, line in prose_lines(text):
        targets = [m.group(1) for m in LINK.finditer(line)]
        r = REFERENCE.match(line)
        if r:
            targets.append(r.group(1))
        for target in targets:
            if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target):  # http:, https:, mailto:, doc:
                continue
            file_part, _, fragment = target.partition("#")
            if file_part:
                resolved = os.path.normpath(os.path.join(os.path.dirname(path), file_part))
            else:
                resolved = path
            shown = os.path.relpath(resolved, ROOT)
            if not os.path.exists(resolved):
                if shown in PENDING:
                    pending.append("%s:%d: %s (pending: written on another branch)" % (rel, number, target))
                else:
                    problems.append("%s:%d: %s: no such file or folder (%s)" % (rel, number, target, shown))
                continue
            if fragment and resolved.endswith(".md") and os.path.isfile(resolved):
                if fragment not in anchors(resolved):
                    problems.append("%s:%d: %s: %s has no heading with anchor #%s" % (rel, number, target, shown, fragment))
    return problems, pending


def unreachable_guides(files):
    """The guides under docs/ that README.md does not link to (each guide starts there)."""
    readme = os.path.join(ROOT, "README.md")
    with open(readme, encoding="utf-8") as f:
        text = f.read()
    linked = set()
    for _, line in prose_lines(text):
        for m in LINK.finditer(line):
            target = m.group(1).partition("#")[0]
            if target and not re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target):
                linked.add(os.path.normpath(target))
    return ["README.md: the guide %s is not linked from the README's Guides" % rel
            for rel in files if re.match(r"^docs/[^/]+\.md$", rel) and rel not in linked]


def main(argv):
    files = argv[1:] or markdown_files()
    problems, pending = [], []
    for rel in files:
        p, q = check(os.path.relpath(os.path.abspath(rel), ROOT) if argv[1:] else rel)
        problems += p
        pending += q
    if not argv[1:]:
        problems += unreachable_guides(files)
    for line in pending:
        print(line)
    for line in problems:
        print(line, file=sys.stderr)
    print("check-links: %d files, %d problems, %d pending" % (len(files), len(problems), len(pending)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
