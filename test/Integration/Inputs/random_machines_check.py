"""Checks random_machines.py's draw (stdin): every shape of 8-64 ranks, and
more than one kind among them."""
import re
import sys

shapes = sys.stdin.read().split()
kinds = set()
for shape in shapes:
    m = re.fullmatch(r"(torus|mesh|percs)(\d+(?:x\d+)*)|hypercube(\d+)", shape)
    assert m, shape
    if m.group(3):
        ranks, kind = 1 << int(m.group(3)), "hypercube"
    else:
        ranks, kind = 1, m.group(1)
        for d in m.group(2).split("x"):
            ranks *= int(d)
    assert 8 <= ranks <= 64, shape
    kinds.add(kind)
assert len(shapes) == 12 and len(kinds) > 1, shapes
print("ok", len(shapes), sorted(kinds))
