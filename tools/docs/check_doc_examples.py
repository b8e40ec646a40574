#!/usr/bin/env python3
"""Every example in a document is a tested file.

Reads the fenced blocks of a Markdown file. A block whose info string is
`sched` is an example: its lines (each stripped of surrounding blanks, blank
lines dropped) must appear, consecutively, in one of the given tested files
(.sched inputs of the lit tests and examples/). A block whose info string is
`text` is a grammar or a sketch and is not checked; a block with no info
string is an error (say which it is). Exits 1 listing every example found
nowhere, with its line in the document.

usage: check_doc_examples.py DOC.md FILE_OR_DIR...
"""
import os
import sys


def blocks(path):
    """(info, first line number, lines) of every fenced block."""
    out, info, start, body = [], None, 0, None
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.startswith("```"):
                if body is None:
                    info, start, body = line[3:].strip(), n, []
                else:
                    out.append((info, start, body))
                    body = None
            elif body is not None:
                body.append(line.rstrip("\n"))
    if body is not None:
        out.append((info, start, body))
    return out


def normalize(lines):
    return [l.strip() for l in lines if l.strip()]


def tested_files(args):
    for a in args:
        if os.path.isdir(a):
            for root, _, names in os.walk(a):
                for name in sorted(names):
                    if name.endswith(".sched"):
                        yield os.path.join(root, name)
        else:
            yield a


def contains(haystack, needle):
    if not needle:
        return True
    first = needle[0]
    for i, line in enumerate(haystack):
        if line == first and haystack[i:i + len(needle)] == needle:
            return True
    return False


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    doc = argv[1]
    files = {}
    for path in tested_files(argv[2:]):
        with open(path, encoding="utf-8", errors="replace") as f:
            files[path] = normalize(f.read().splitlines())
    bad = 0
    examples = 0
    for info, start, body in blocks(doc):
        if info == "text":
            continue
        if info != "sched":
            print(f"{doc}:{start}: a block without `sched` (an example) or "
                  f"`text` (a grammar or sketch)")
            bad += 1
            continue
        examples += 1
        want = normalize(body)
        where = [p for p, lines in files.items() if contains(lines, want)]
        if not where:
            print(f"{doc}:{start}: example found in no tested file")
            bad += 1
    if bad:
        return 1
    print(f"{doc}: {examples} examples, each in a tested file")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
