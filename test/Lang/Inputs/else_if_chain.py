"""Prints a .sched file whose hand-written schedule holds CHAINS `else if`
chains of LENGTH branches each (test/Lang/else-if-chain.test)."""
import sys

length = int(sys.argv[1])
chains = int(sys.argv[2]) if len(sys.argv) > 2 else 1
branch = "{ send 0 -> 1 chunks 0; }"
chain = f"if s == 0 {branch}" + "".join(
    f" else if s == {i} {branch}" for i in range(1, length))
print("machine m { topology = torus(2); bandwidth = 1 GB/s; }")
print("broadcast a { root = 0; block = 8;")
print("  schedule { for s in 0 .. 1 { phase {")
print("\n".join([chain] * chains))
print("} } } }")
