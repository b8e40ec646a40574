//===- phasec_sim_platform.cpp - SimGrid platform with phasec's routes ----===//
//
// Part of phasec. Copied verbatim by `phasec --emit=simgrid` into the output
// directory and built there as `libplatform.so` (see run.sh); it is the same
// for every machine: all machine-specific data is in `platform.txt`.
//
//===----------------------------------------------------------------------===//
//
// `smpirun -platform libplatform.so` dlopens this library and calls
// load_platform(). It reads platform.txt (next to the library, or the file
// named by $PHASEC_SIM_PLATFORM) and builds one Full zone in which:
//   - every MPI rank is its own host ("rank-<r>"), so that the route of every
//     ordered rank pair can be the one phasec's schedule chose (SimGrid routes
//     are per host pair, not per message);
//   - every directed link of the topology is its own SimGrid link (shared
//     max-min), so the machine is full duplex by construction;
//   - injection/ejection ports are separate links per node (if the machine
//     has an injection bandwidth), and ranks of one node share a FATPIPE
//     "memory" link for node-local transfers;
//   - each route is the explicit list of link ids from the file.
//
// File format (whitespace separated, '#' comments only before "hosts"):
//   phasec-simgrid-platform 1
//   hosts H speed S
//   links L
//   <name> <bandwidth B/s> <latency s> <S|F>        (L lines; F = FATPIPE)
//   routes R
//   <src host> <dst host> <n> <link> ... <link>     (R lines)
//
//===----------------------------------------------------------------------===//

#include <simgrid/s4u.hpp>

#include <dlfcn.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace sg4 = simgrid::s4u;

extern "C" void load_platform(const sg4::Engine &e);

namespace {

[[noreturn]] void die(const std::string &msg) {
  std::fprintf(stderr, "phasec platform: %s\n", msg.c_str());
  std::exit(2);
}

/// platform.txt next to this library unless $PHASEC_SIM_PLATFORM names one.
std::string dataPath() {
  if (const char *env = std::getenv("PHASEC_SIM_PLATFORM"))
    return env;
  Dl_info info;
  if (dladdr(reinterpret_cast<void *>(&load_platform), &info) == 0 ||
      info.dli_fname == nullptr)
    return "platform.txt";
  std::string lib = info.dli_fname;
  size_t slash = lib.rfind('/');
  return slash == std::string::npos ? "platform.txt"
                                    : lib.substr(0, slash) + "/platform.txt";
}

/// A tiny tokenizer over the whole file (fast enough for 10^6 routes).
struct Reader {
  std::vector<char> buf;
  size_t pos = 0;
  std::string path;

  void skipSpace() {
    while (pos < buf.size()) {
      char c = buf[pos];
      if (c == '#') {
        while (pos < buf.size() && buf[pos] != '\n')
          ++pos;
      } else if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
        ++pos;
      } else {
        break;
      }
    }
  }
  std::string word() {
    skipSpace();
    size_t start = pos;
    while (pos < buf.size() && buf[pos] != ' ' && buf[pos] != '\n' &&
           buf[pos] != '\t' && buf[pos] != '\r')
      ++pos;
    if (start == pos)
      die(path + ": unexpected end of file");
    return std::string(&buf[start], pos - start);
  }
  long integer() {
    skipSpace();
    if (pos >= buf.size())
      die(path + ": unexpected end of file");
    char *end = nullptr;
    long v = std::strtol(&buf[pos], &end, 10);
    if (end == &buf[pos])
      die(path + ": expected an integer at byte " + std::to_string(pos));
    pos = static_cast<size_t>(end - buf.data());
    return v;
  }
  double real() {
    skipSpace();
    if (pos >= buf.size())
      die(path + ": unexpected end of file");
    char *end = nullptr;
    double v = std::strtod(&buf[pos], &end);
    if (end == &buf[pos])
      die(path + ": expected a number at byte " + std::to_string(pos));
    pos = static_cast<size_t>(end - buf.data());
    return v;
  }
  void expect(const char *w) {
    std::string got = word();
    if (got != w)
      die(path + ": expected '" + w + "', found '" + got + "'");
  }
};

} // namespace

void load_platform(const sg4::Engine &) {
  Reader in;
  in.path = dataPath();
  FILE *f = std::fopen(in.path.c_str(), "rb");
  if (!f)
    die("cannot open " + in.path + ": " + std::strerror(errno));
  char chunk[1 << 16];
  size_t n;
  while ((n = std::fread(chunk, 1, sizeof chunk, f)) > 0)
    in.buf.insert(in.buf.end(), chunk, chunk + n);
  std::fclose(f);
  in.buf.push_back('\n');

  in.expect("phasec-simgrid-platform");
  if (in.integer() != 1)
    die(in.path + ": unsupported format version");
  in.expect("hosts");
  long numHosts = in.integer();
  in.expect("speed");
  double speed = in.real();

  auto *zone = sg4::create_full_zone("phasec");
  std::vector<simgrid::kernel::routing::NetPoint *> hosts;
  hosts.reserve(numHosts);
  for (long h = 0; h < numHosts; ++h)
    hosts.push_back(
        zone->create_host("rank-" + std::to_string(h), speed)->get_netpoint());

  in.expect("links");
  long numLinks = in.integer();
  std::vector<sg4::Link *> links;
  links.reserve(numLinks);
  for (long l = 0; l < numLinks; ++l) {
    std::string name = in.word();
    double bw = in.real();
    double lat = in.real();
    std::string policy = in.word();
    sg4::Link *link = zone->create_link(name, bw);
    link->set_latency(lat);
    if (policy == "F")
      link->set_sharing_policy(sg4::Link::SharingPolicy::FATPIPE);
    // Sealed with the zone below (sealing twice breaks SimGrid's tracing).
    links.push_back(link);
  }

  in.expect("routes");
  long numRoutes = in.integer();
  std::vector<sg4::LinkInRoute> route;
  for (long r = 0; r < numRoutes; ++r) {
    long src = in.integer(), dst = in.integer(), len = in.integer();
    if (src < 0 || src >= numHosts || dst < 0 || dst >= numHosts || len < 0)
      die(in.path + ": bad route " + std::to_string(r));
    route.clear();
    for (long i = 0; i < len; ++i) {
      long id = in.integer();
      if (id < 0 || id >= numLinks)
        die(in.path + ": bad link id in route " + std::to_string(r));
      route.emplace_back(links[id]);
    }
    zone->add_route(hosts[src], hosts[dst], nullptr, nullptr, route,
                    /*symmetrical=*/false);
  }
  zone->seal();
}
