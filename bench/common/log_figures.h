#pragma once
// Figures the benchmarks read off a gantry log and out of their samples.

#include <algorithm>
#include <cmath>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace gantry::bench {

/// The dur_ms of every model_call line in a gantry log, in order (whole milliseconds).
inline std::vector<double> modelCallDurations(const std::string& log) {
  const std::regex model(R"re("msg":"model_call".*"dur_ms":"(\d+)")re");
  std::vector<double> out;
  std::istringstream lines(log);
  std::string line;
  while (std::getline(lines, line)) {
    std::smatch m;
    if (std::regex_search(line, m, model)) out.push_back(std::stod(m[1]));
  }
  return out;
}

/// The nearest-rank p-th percentile (p in (0, 1]) of samples; 0 when there are none.
inline double percentile(std::vector<double> samples, double p) {
  if (samples.empty()) return 0;
  std::sort(samples.begin(), samples.end());
  auto rank = static_cast<std::size_t>(std::ceil(p * static_cast<double>(samples.size())));
  return samples[std::min(std::max<std::size_t>(rank, 1), samples.size()) - 1];
}

}  // namespace gantry::bench
