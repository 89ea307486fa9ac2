// base/files.h: bounded reads, and writes that do what a user means for new paths, regular files,
// symlinks, devices, FIFOs and folders (issue 18's special-file cases), and the calibration lock.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "base/files.h"

namespace fs = std::filesystem;
using rooftop::InputError;

namespace {
std::string read_all(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

fs::path fresh_dir(const std::string& name) {
  fs::path d = fs::temp_directory_path() / ("rooftop_base_test_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

int entries(const fs::path& dir) {
  int n = 0;
  for (const auto& e : fs::directory_iterator(dir)) n += e.path().filename() != "";
  return n;
}

std::string random_text(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::string s(n, ' ');
  for (auto& ch : s) ch = static_cast<char>('a' + rng() % 26);
  return s;
}
}  // namespace

TEST_CASE("write_file_atomically creates folders when asked, replaces the content, leaves no temp file") {
  fs::path dir = fresh_dir("atomic");
  fs::path target = dir / "a" / "b" / "local.json";
  CHECK_THROWS_AS(rooftop::write_file_atomically(target.string(), "x"), InputError);  // no folders by default
  rooftop::write_file_atomically(target.string(), "old\n", true);
  CHECK(read_all(target) == "old\n");
  const std::string big = random_text(1 << 20, 1);
  rooftop::write_file_atomically(target.string(), big);
  CHECK(read_all(target) == big);
  CHECK(entries(target.parent_path()) == 1);  // the temp file was renamed away
  fs::remove_all(dir);
}

TEST_CASE("write_file_atomically keeps an existing file's permission bits") {
  fs::path dir = fresh_dir("mode");
  fs::path target = dir / "out.txt";
  { std::ofstream(target) << "old"; }
  ::chmod(target.c_str(), 0600);
  rooftop::write_file_atomically(target.string(), "new");
  struct stat st{};
  REQUIRE(::stat(target.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  fs::remove_all(dir);
}

TEST_CASE("write_file_atomically writes through a symlink and keeps the link") {
  fs::path dir = fresh_dir("symlink");
  fs::path real = dir / "real.json", link = dir / "link.json";
  { std::ofstream(real) << "old"; }
  fs::create_symlink("real.json", link);  // relative link: resolved against its own folder
  const std::string text = random_text(4096, 2);
  rooftop::write_file_atomically(link.string(), text);
  CHECK(fs::is_symlink(fs::symlink_status(link)));
  CHECK(read_all(real) == text);
  // A dangling link creates the file it names.
  fs::path dangling = dir / "dangling.json";
  fs::create_symlink(dir / "new.json", dangling);
  rooftop::write_file_atomically(dangling.string(), "n");
  CHECK(fs::is_symlink(fs::symlink_status(dangling)));
  CHECK(read_all(dir / "new.json") == "n");
  // A loop of links is refused, not followed forever.
  fs::create_symlink(dir / "loop_b", dir / "loop_a");
  fs::create_symlink(dir / "loop_a", dir / "loop_b");
  CHECK_THROWS_AS(rooftop::write_file_atomically((dir / "loop_a").string(), "x"), InputError);
  fs::remove_all(dir);
}

TEST_CASE("write_file_atomically writes devices in place and reports their errors") {
  rooftop::write_file_atomically("/dev/null", "discarded\n");  // stays a device
  struct stat st{};
  REQUIRE(::stat("/dev/null", &st) == 0);
  CHECK(S_ISCHR(st.st_mode));
  if (fs::exists("/dev/full")) {
    try {
      rooftop::write_file_atomically("/dev/full", "x");
      FAIL("writing /dev/full succeeded");
    } catch (const InputError& e) {
      CHECK(std::string(e.what()).find("No space left") != std::string::npos);
    }
    REQUIRE(::stat("/dev/full", &st) == 0);
    CHECK(S_ISCHR(st.st_mode));
  }
}

TEST_CASE("write_file_atomically writes a FIFO that is read, and refuses one nobody reads") {
  fs::path dir = fresh_dir("fifo");
  fs::path fifo = dir / "pipe";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_THROWS_AS(rooftop::write_file_atomically(fifo.string(), "x"), InputError);  // no reader: no hang
  int rd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  REQUIRE(rd >= 0);
  rooftop::write_file_atomically(fifo.string(), "through the pipe");
  char buf[64] = {};
  CHECK(::read(rd, buf, sizeof buf) == 16);
  CHECK(std::string(buf) == "through the pipe");
  ::close(rd);
  struct stat st{};
  REQUIRE(::stat(fifo.c_str(), &st) == 0);
  CHECK(S_ISFIFO(st.st_mode));
  fs::remove_all(dir);
}

TEST_CASE("write_file_atomically refuses folders and missing folders with a clear message") {
  fs::path dir = fresh_dir("blocked");
  fs::path blocker = dir / "file";
  { std::ofstream(blocker) << "i am a file"; }
  CHECK_THROWS_WITH(rooftop::write_file_atomically((blocker / "x.json").string(), "new"), Catch::Contains("Not a directory"));
  CHECK_THROWS_WITH(rooftop::write_file_atomically(dir.string(), "new"), Catch::Contains("is a folder"));
  CHECK_THROWS_WITH(rooftop::write_file_atomically((dir / "no" / "x").string(), "new"), Catch::Contains("does not exist"));
  CHECK(entries(dir) == 1);
  CHECK(read_all(blocker) == "i am a file");
  fs::remove_all(dir);
}

TEST_CASE("read_text_file reads regular files whole and refuses folders, devices and oversize files") {
  fs::path dir = fresh_dir("read");
  const std::string text = random_text(10000, 3);
  { std::ofstream(dir / "a.txt") << text; }
  CHECK(rooftop::read_text_file((dir / "a.txt").string(), "file") == text);
  CHECK_THROWS_WITH(rooftop::read_text_file((dir / "a.txt").string(), "file", 9999), Catch::Contains("at most 9999"));
  CHECK_THROWS_WITH(rooftop::read_text_file(dir.string(), "file"), Catch::Contains("is a folder"));
  CHECK_THROWS_WITH(rooftop::read_text_file((dir / "none").string(), "file"), Catch::Contains("No such file"));
  CHECK_THROWS_WITH(rooftop::read_text_file("/dev/zero", "file"), Catch::Contains("not a regular file"));
  fs::remove_all(dir);
}

TEST_CASE("FileLock: a second holder is refused until the first lets go") {
  fs::path dir = fresh_dir("lock");
  const std::string path = (dir / "sub" / "x.lock").string();
  {
    rooftop::FileLock first(path, "another job");
    // flock locks belong to open file descriptions: a second open in this process conflicts too.
    CHECK_THROWS_WITH(rooftop::FileLock(path, "another job"), Catch::Contains("another job is already running"));
  }
  CHECK_NOTHROW(rooftop::FileLock(path, "another job"));
  fs::remove_all(dir);
}
