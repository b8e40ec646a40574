"""Compares phasec's --emit=cost-json of examples/delta_c3_units.sched with
seed 003's Figure 3 (one-to-all on the 256-processor Delta): set-ups and the
coefficient of L per algorithm, each within 5% or not, and the size where
3-lev-sq and 1-lev-dir cross (the seed: between 4 and 6 KB)."""
import json
import sys

# Figure 3: algorithm -> (set-ups, coefficient of L).
FIGURE3 = {
    "1-lev-dir": (256, 0.55),
    "1-lev-our-br": (8, 27),
    "2-lev-rec": (32, 1.23),
    "3-lev-sq": (24, 0.93),
    "logp-lev-sq": (8, 5.29),
}

doc = json.load(open(sys.argv[1]))
setup = doc["machines"][0]["setup_units"]
ours = {}
for op in doc["operations"]:
    if op["kind"] == "one_to_all" and op["seed_name"] in FIGURE3:
        ours[op["seed_name"]] = op["communication"]
for name, (setups, perL) in FIGURE3.items():
    c = ours[name]
    ds = (c["setups"] - setups) / setups * 100
    dl = (c["per_L"] - perL) / perL * 100
    ok = abs(ds) <= 5 and abs(dl) <= 5
    print("%s: %gs + %.4fL against %gs + %gL (%+.1f%%, %+.1f%%): %s"
          % (name, c["setups"], c["per_L"], setups, perL, ds, dl,
             "within 5%" if ok else "NOT within 5%"))
sq, d = ours["3-lev-sq"], ours["1-lev-dir"]
cross = (d["setups"] - sq["setups"]) * setup / (sq["per_L"] - d["per_L"])
print("3-lev-sq / 1-lev-dir cross at L = %.0f B (s = %g): %s" %
      (cross, setup, "between 4 and 6 KB" if 4096 <= cross <= 6144
       else "NOT between 4 and 6 KB"))
