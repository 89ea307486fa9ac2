// The layers of docs/ARCHITECTURE.md, checked on the sources: every `#include "<folder>/..."` of a library's file
// names a folder its layer may use. A new include across the layers fails here with the file and the line.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>

namespace {

// Layer (a folder, or a sub-folder named before its parent) -> the folders its files may include.
const std::map<std::string, std::set<std::string>>& allowed() {
  static const std::map<std::string, std::set<std::string>> rules = {
      {"base", {"base"}},
      {"formats", {"formats", "base"}},
      {"analyzer", {"analyzer", "formats", "base"}},
      {"kernels/cuda", {"kernels/cuda", "kernels", "analyzer", "formats", "base"}},
      {"kernels", {"kernels", "formats", "base"}},
      {"gguf", {"gguf", "formats", "base"}},
      {"engine", {"engine", "gguf", "kernels", "formats", "base"}},
      {"hwdb", {"hwdb", "analyzer", "formats", "base"}},
      {"models", {"models", "analyzer", "gguf", "formats", "base"}},
      {"reports", {"reports", "analyzer", "formats", "base"}},
      {"measure", {"measure", "kernels", "hwdb", "analyzer", "formats", "base"}},
      {"validate/local",
       {"validate/local", "measure", "engine", "kernels", "kernels/cuda", "hwdb", "analyzer", "reports", "formats",
        "base"}},
      {"validate", {"validate", "analyzer", "hwdb", "models", "formats", "base"}},
  };
  return rules;
}

// The layer of a path relative to the source root (a file, or an included header): the longest rule that is a
// folder prefix of it, so that kernels/cuda/gpu.h is in kernels/cuda and validate/local/sweep.h in validate/local.
std::string layer_of(const std::string& rel) {
  std::string best;
  for (const auto& [layer, _] : allowed())
    if (rel.rfind(layer + "/", 0) == 0 && layer.size() > best.size()) best = layer;
  return best;
}

}  // namespace

TEST_CASE("each library includes only the layers docs/ARCHITECTURE.md allows it") {
  namespace fs = std::filesystem;
  const fs::path root = ROOFTOP_SOURCE_DIR;
  const std::regex include_re(R"re(^\s*#\s*include\s+"([a-z_]+/[^"]+)")re");
  int files = 0, includes = 0;
  for (const auto& [layer, _] : allowed()) {
    if (layer.find('/') != std::string::npos) continue;  // sub-folders are walked with their parent
    for (const auto& e : fs::recursive_directory_iterator(root / layer)) {
      const std::string ext = e.path().extension().string();
      if (!e.is_regular_file() || (ext != ".cpp" && ext != ".h" && ext != ".cu" && ext != ".cuh")) continue;
      const std::string rel = fs::relative(e.path(), root).generic_string();
      const std::string l = layer_of(rel);
      REQUIRE(!l.empty());
      ++files;
      std::ifstream in(e.path());
      std::string line;
      for (int n = 1; std::getline(in, line); ++n) {
        std::smatch m;
        if (!std::regex_search(line, m, include_re)) continue;
        ++includes;
        const std::string target = layer_of(m[1].str());
        INFO(rel << ":" << n << ": " << line << " (layer " << l << " includes layer '" << target << "')");
        CHECK(allowed().at(l).count(target) == 1);
      }
    }
  }
  CHECK(files > 150);  // the walk found the sources
  CHECK(includes > 500);
}
