//===- phasec_ns3_main.cc - The ns-3 program phasec emits -----------------===//
//
// Part of phasec. Usage: phasec-ns3 [--trace DIR] SCENARIO [VARIANT...]
//
// Simulates every variant of the scenario (or the named ones) on the
// lossless credit-flow network (phasec_ns3_net.h) and prints one line per
// variant:
//   variant NAME time S bound_pct P bytes B packets K packet_hops H
//     dropped 0 overflows 0 undelivered 0 max_buffered M
// then "ns3: N variants; dropped 0, overflows 0, undelivered 0". Exit 1 if
// the scenario is bad, 2 if a packet was dropped, a buffer overflowed (the
// credits' invariant) or a message never arrived: the event queue ran dry
// with packets still buffered, a deadlock (a ring with one virtual channel).
// With --trace DIR (an existing directory) every variant run also writes
// its CSVs there (phasec_ns3_net.h, writeTrace): the report's data.
//
//===----------------------------------------------------------------------===//

#include "phasec_ns3_net.h"

#include "ns3/nstime.h"

#include <cstdio>
#include <string>

#include <sys/stat.h>

int main(int argc, char **argv) {
  std::string traceDir;
  if (argc >= 3 && std::string(argv[1]) == "--trace") {
    traceDir = argv[2];
    argv[2] = argv[0];
    argv += 2;
    argc -= 2;
  }
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s [--trace DIR] SCENARIO [VARIANT...]\n",
                 argv[0]);
    return 1;
  }
  // Before any simulation: a missing directory would fail after the first.
  struct stat st;
  if (!traceDir.empty() &&
      (stat(traceDir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))) {
    std::fprintf(stderr, "error: --trace %s: not a directory\n",
                 traceDir.c_str());
    return 1;
  }
  // Picoseconds: a 40-byte packet on a 75 MB/s link takes 533.3 ns.
  ns3::Time::SetResolution(ns3::Time::PS);
  phasec_ns3::Scenario sc;
  std::string error;
  if (!phasec_ns3::parseScenario(argv[1], sc, error)) {
    std::fprintf(stderr, "error: %s\n", error.c_str());
    return 1;
  }
  for (int i = 2; i < argc; ++i) {
    bool found = false;
    for (const phasec_ns3::VariantSpec &v : sc.variants)
      found |= v.name == argv[i];
    if (!found) {
      std::fprintf(stderr, "error: no variant '%s' in %s\n", argv[i], argv[1]);
      return 1;
    }
  }
  int run = 0;
  int64_t dropped = 0, overflows = 0, undelivered = 0;
  for (const phasec_ns3::VariantSpec &v : sc.variants) {
    bool wanted = argc == 2;
    for (int i = 2; i < argc; ++i)
      wanted |= v.name == argv[i];
    if (!wanted)
      continue;
    phasec_ns3::Trace trace;
    phasec_ns3::VariantResult r =
        phasec_ns3::simulate(sc, v, traceDir.empty() ? nullptr : &trace);
    if (!traceDir.empty() &&
        !phasec_ns3::writeTrace(traceDir, sc, v, r, trace, error)) {
      std::fprintf(stderr, "error: %s\n", error.c_str());
      return 1;
    }
    double pct = r.time > 0 && sc.bound > 0 ? 100 * sc.bound / r.time : 0;
    std::printf("variant %s time %.9e bound_pct %.2f bytes %lld packets %lld "
                "packet_hops %lld dropped %lld overflows %lld undelivered "
                "%lld max_buffered %d\n",
                r.name.c_str(), r.time, pct, (long long)r.bytes,
                (long long)r.packets, (long long)r.packetHops,
                (long long)r.dropped, (long long)r.overflows,
                (long long)r.undelivered, r.maxBuffered);
    std::fflush(stdout);
    if (r.undelivered)
      std::fprintf(stderr,
                   "error: variant %s: %lld messages never arrived: the "
                   "network deadlocked (no event left with packets "
                   "buffered)\n",
                   r.name.c_str(), (long long)r.undelivered);
    if (r.dropped || r.overflows)
      std::fprintf(stderr,
                   "error: variant %s: %lld packets dropped, %lld buffer "
                   "overflows in a lossless network\n",
                   r.name.c_str(), (long long)r.dropped,
                   (long long)r.overflows);
    dropped += r.dropped;
    overflows += r.overflows;
    undelivered += r.undelivered;
    ++run;
  }
  std::printf("ns3: %d variants; dropped %lld, overflows %lld, undelivered "
              "%lld\n",
              run, (long long)dropped, (long long)overflows,
              (long long)undelivered);
  return dropped + overflows + undelivered ? 2 : 0;
}
