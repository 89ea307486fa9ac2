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
      {"analyzer", {"analyzer", "base"}},
      {"kernels/cuda", {"kernels", "analyzer", "base"}},
      {"kernels", {"kernels", "base"}},
      {"gguf", {"gguf", "base"}},
      {"engine", {"engine", "gguf", "kernels", "base"}},
      {"hwdb", {"hwdb", "analyzer", "base"}},
      {"models", {"models", "analyzer", "gguf", "base"}},
      {"reports", {"reports", "analyzer", "base"}},
      {"microbench", {"microbench", "kernels", "hwdb", "analyzer", "base"}},
      {"validate/local", {"validate", "microbench", "engine", "kernels", "hwdb", "analyzer", "reports", "base"}},
      {"validate", {"validate", "analyzer", "hwdb", "models", "base"}},
  };
  return rules;
}

// The layer of a path relative to the source root: the longest rule that is a folder prefix of it.
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
  const std::regex include_re(R"(^\s*#\s*include\s+"([a-z_]+)/)");
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
        INFO(rel << ":" << n << ": " << line << " (layer " << l << ")");
        CHECK(allowed().at(l).count(m[1].str()) == 1);
      }
    }
  }
  CHECK(files > 150);  // the walk found the sources
  CHECK(includes > 500);
}
