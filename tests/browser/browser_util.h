// Helpers of the browser tests: a shell command's exit code, a file's text, and headless Chromium's command line.
#pragma once
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>

namespace rooftop::test {

inline int shell(const std::string& cmd) {
  const int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

inline std::string chromium_cmd(const std::filesystem::path& profile) {
  return "timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking "
         "--disable-component-update --disable-sync --hide-scrollbars --user-data-dir=" + profile.string();
}

}  // namespace rooftop::test
