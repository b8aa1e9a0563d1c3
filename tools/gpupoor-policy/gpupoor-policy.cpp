//===- gpupoor-policy.cpp - the policy's decisions as JSON ----------------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// Prints what the policy (gpupoor/Policy) decides for each problem: the
// strategy gpupoor-split-k writes and the launch the PyTorch package makes,
// one JSON object a line. Problems come from the grid the options span
// (every combination) or, with `-`, from standard input, one a line as
// key=value words:
//
//   chip=sm_90a m=1 n=4096 k=4096 [batch=B] [b=kn|nk] [a=mk|km]
//   [splits=S] [max-splits=256] [slices=P] [sm-count=132] [tile=BM,BN,BK]
//
// A size of `?` is unknown (a dynamic shape): such a problem has a strategy
// and no launch. The strategy says whether the tuned table chose it
// (`tuned`); the launch, which A layout its variant reads (`a`).
//
//===----------------------------------------------------------------------===//

#include "gpupoor/Policy/Policy.h"

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

using namespace mlir::gpupoor::policy;

namespace {

[[noreturn]] void fail(const std::string &message) {
  std::cerr << "gpupoor-policy: " << message << "\n";
  std::exit(2);
}

int64_t parseSize(const std::string &key, const std::string &value) {
  if (value == "?")
    return kDynamic;
  char *end = nullptr;
  errno = 0;
  long long v = std::strtoll(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0' || errno != 0 || v < 0)
    fail(key + " must be a size >= 0 or ?, got '" + value + "'");
  return v;
}

std::vector<std::string> splitList(const std::string &s, char sep) {
  std::vector<std::string> parts;
  std::stringstream in(s);
  for (std::string part; std::getline(in, part, sep);)
    parts.push_back(part);
  return parts;
}

/// Sets one key of `p` from a key=value word.
void setKey(Problem &p, const std::string &key, const std::string &value) {
  if (key == "chip") {
    std::optional<Chip> chip = parseChip(value);
    if (!chip)
      fail("unknown chip '" + value + "'");
    p.chip = *chip;
  } else if (key == "m" || key == "n" || key == "k" || key == "batch") {
    int64_t v = parseSize(key, value);
    if (key == "m")
      p.shape.m = v;
    else if (key == "n")
      p.shape.n = v;
    else if (key == "k")
      p.k = v;
    else
      p.shape.batched = true, p.shape.batch = v;
  } else if (key == "b" || key == "a") {
    if (key == "b" && (value == "kn" || value == "nk"))
      p.bLayout = value == "nk" ? BLayout::NK : BLayout::KN;
    else if (key == "a" && (value == "mk" || value == "km"))
      p.aLayout = value == "km" ? ALayout::KM : ALayout::MK;
    else
      fail("unknown layout " + key + "=" + value);
  } else if (key == "splits" || key == "max-splits" || key == "slices" ||
             key == "sm-count") {
    int64_t v = parseSize(key, value);
    if (isDynamic(v) || (key != "slices" && v == 0) || v > kMaxSplits)
      fail(key + " out of range: " + value);
    if (key == "splits")
      p.splits = v;
    else if (key == "max-splits")
      p.maxSplits = v;
    else if (key == "slices")
      p.slices = v;
    else
      p.smCount = v;
  } else if (key == "tile") {
    std::vector<std::string> parts = splitList(value, ',');
    if (parts.size() != 3)
      fail("tile must be BM,BN,BK, got '" + value + "'");
    Tile t;
    for (int i = 0; i < 3; ++i) {
      t[i] = parseSize("tile", parts[i]);
      if (isDynamic(t[i]) || t[i] == 0 || t[i] > 4096)
        fail("tile sizes must be in [1, 4096], got '" + value + "'");
    }
    p.tile = t;
  } else {
    fail("unknown key '" + key + "'");
  }
}

std::string size(int64_t v) {
  return isDynamic(v) ? "null" : std::to_string(v);
}

std::string tile(const Tile &t) {
  return "[" + std::to_string(t[0]) + ", " + std::to_string(t[1]) + ", " +
         std::to_string(t[2]) + "]";
}

void print(const Problem &p) {
  if (!withinSizeLimits(p.shape, p.k))
    fail("an operand of more than 2^48 elements (batch * M * N, M * K or "
         "K * N)");
  Strategy s = chooseStrategy(p);
  std::ostringstream out;
  out << "{\"chip\": \"" << chipName(p.chip)
      << "\", \"batch\": " << (p.shape.batched ? size(p.shape.batch) : "null")
      << ", \"m\": " << size(p.shape.m) << ", \"n\": " << size(p.shape.n)
      << ", \"k\": " << size(p.k) << ", \"b\": \""
      << (p.bLayout == BLayout::NK ? "nk" : "kn") << "\", \"a\": \""
      << (p.aLayout == ALayout::KM ? "km" : "mk")
      << "\", \"sm_count\": " << p.sms() << ", \"strategy\": {\"chip\": \""
      << chipName(s.chip) << "\", \"tile\": " << tile(s.tile)
      << ", \"swapped\": " << (s.swapped ? "true" : "false")
      << ", \"splits\": " << (s.splits ? std::to_string(*s.splits) : "null")
      << ", \"slices\": " << s.slices << ", \"sets\": " << s.sets
      << ", \"tuned\": " << (s.tuned ? "true" : "false") << "}";
  if (p.shape.isStatic() && !isDynamic(p.k) && !p.tile && !p.splits) {
    Launch l = chooseLaunch(p);
    out << ", \"launch\": {\"family\": \"" << familyName(l.family)
        << "\", \"a\": \"" << (l.aLayout == ALayout::KM ? "km" : "mk")
        << "\", \"chip\": \"" << chipName(l.chip)
        << "\", \"tile\": " << tile(l.tile)
        << ", \"swapped\": " << (l.swapped ? "true" : "false")
        << ", \"splits\": " << l.splits << ", \"slices\": " << l.slices
        << ", \"sets\": " << l.sets << ", \"tiles\": " << l.tiles
        << ", \"grid\": [" << l.gridX << ", " << l.gridY << "]}";
  }
  out << "}\n";
  std::cout << out.str();
}

void printLine(const std::string &line) {
  Problem p;
  std::istringstream words(line);
  for (std::string word; words >> word;) {
    size_t eq = word.find('=');
    if (eq == std::string::npos)
      fail("expected key=value, got '" + word + "'");
    setKey(p, word.substr(0, eq), word.substr(eq + 1));
  }
  print(p);
}

} // namespace

int main(int argc, char **argv) {
  // Every option is a key of the line format whose value may be a
  // comma-separated list; the grid is their product.
  std::vector<std::pair<std::string, std::vector<std::string>>> axes;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-") {
      std::ios::sync_with_stdio(false);
      for (std::string line; std::getline(std::cin, line);)
        if (line.find_first_not_of(" \t") != std::string::npos)
          printLine(line);
      return 0;
    }
    if (arg == "-h" || arg == "--help") {
      std::cout << "usage: gpupoor-policy --chip=sm_90a --m=1,16 --n=4096 "
                   "--k=4096 [--b=nk] [--a=mk] [--batch=B] [--splits=S] "
                   "[--max-splits="
                << kDefaultMaxSplits
                << "] [--slices=P] [--sm-count=132] "
                   "[--tile=BM,BN,BK]\n       gpupoor-policy - < problems "
                   "(one a line, as key=value words)\n";
      return 0;
    }
    size_t eq = arg.find('=');
    if (arg.rfind("--", 0) != 0 || eq == std::string::npos)
      fail("expected --key=values or -, got '" + arg + "'");
    std::string key = arg.substr(2, eq - 2);
    // A tile's commas are its own.
    std::vector<std::string> values =
        key == "tile" ? std::vector<std::string>{arg.substr(eq + 1)}
                      : splitList(arg.substr(eq + 1), ',');
    axes.push_back({key, values});
  }
  std::vector<size_t> index(axes.size(), 0);
  for (;;) {
    std::string line;
    for (size_t a = 0; a < axes.size(); ++a)
      line += axes[a].first + "=" + axes[a].second[index[a]] + " ";
    printLine(line);
    size_t a = 0;
    for (; a < axes.size(); ++a) {
      if (++index[a] < axes[a].second.size())
        break;
      index[a] = 0;
    }
    if (a == axes.size())
      return 0;
  }
}
