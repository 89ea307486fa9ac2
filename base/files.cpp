// read_text_file, write_file_atomically, cache_dir: see files.h for the rules.
#include "base/files.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/errors.h"

namespace rooftop {
namespace fs = std::filesystem;

namespace {

std::string errno_text(int e) { return std::strerror(e); }

// Writes all of `text` to an open descriptor; false (errno set) on any failure.
bool write_all(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

// A character device or FIFO: opened without creating or truncating, written, closed, every error
// reported. O_NONBLOCK on open turns "FIFO with no reader" into ENXIO instead of a hang.
void write_in_place(const std::string& shown, const std::string& path, const std::string& text) {
  int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    if (e == ENXIO) throw InputError("cannot write '" + shown + "': it is a FIFO that no process is reading");
    throw InputError("cannot write '" + shown + "': " + errno_text(e));
  }
  struct stat st{};  // what was opened, not what the name was a moment ago
  if (::fstat(fd, &st) != 0 || !(S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
    ::close(fd);
    throw InputError("cannot write '" + shown + "': it changed while being opened; expected a device or FIFO");
  }
  int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  bool ok = write_all(fd, text);
  int e = errno;
  if (::close(fd) != 0 && ok) {
    ok = false;
    e = errno;
  }
  if (!ok) throw InputError("cannot write '" + shown + "': " + errno_text(e));
}

// A new or regular file: temp file beside it, then rename over it.
void write_replacing(const std::string& shown, const fs::path& target, const std::string& text) {
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  // A short temp name (a long target name plus a suffix could pass NAME_MAX), hidden, in the same folder.
  std::string tmpl = (dir / ".rooftop-XXXXXX").string();
  int fd = ::mkstemp(tmpl.data());
  if (fd < 0) throw InputError("cannot write '" + shown + "': cannot create a file in '" + dir.string() + "': " + errno_text(errno));
  struct stat old{};
  if (::stat(target.c_str(), &old) == 0) {
    ::fchmod(fd, old.st_mode & 07777);  // an existing file keeps its mode
  } else {
    const mode_t mask = ::umask(0);  // a new file gets 0666 less the umask, as any other program's
    ::umask(mask);
    ::fchmod(fd, 0666 & ~mask);
  }
  bool ok = write_all(fd, text) && ::fsync(fd) == 0;  // on disk before the rename makes it visible
  int e = errno;
  if (::close(fd) != 0 && ok) {
    ok = false;
    e = errno;
  }
  if (ok && ::rename(tmpl.c_str(), target.c_str()) != 0) {
    ok = false;
    e = errno;
  }
  if (!ok) {
    ::unlink(tmpl.c_str());
    throw InputError("cannot write '" + shown + "': " + errno_text(e));
  }
}

}  // namespace

std::string read_text_file(const std::string& path, const std::string& what, int64_t max_bytes) {
  // Opened first (O_NONBLOCK: a FIFO cannot make open wait), then the descriptor is examined.
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw InputError("cannot read " + what + " '" + path + "': " + errno_text(errno));
  struct stat st{};
  std::string problem;
  if (::fstat(fd, &st) != 0) problem = errno_text(errno);
  else if (S_ISDIR(st.st_mode)) problem = "it is a folder; expected a file";
  else if (!S_ISREG(st.st_mode)) problem = "not a regular file";
  if (!problem.empty()) {
    ::close(fd);
    throw InputError("cannot read " + what + " '" + path + "': " + problem);
  }
  if (st.st_size > max_bytes) {
    ::close(fd);
    throw InputError(what + " '" + path + "' is " + std::to_string(st.st_size) + " bytes; expected at most " +
                     std::to_string(max_bytes));
  }
  std::string text;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int e = errno;
      ::close(fd);
      throw InputError("cannot read " + what + " '" + path + "': " + errno_text(e));
    }
    if (n == 0) break;
    if (static_cast<int64_t>(text.size()) + n > max_bytes) {  // grew while being read
      ::close(fd);
      throw InputError(what + " '" + path + "' is larger than " + std::to_string(max_bytes) + " bytes");
    }
    text.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return text;
}

void write_file_atomically(const std::string& path, const std::string& text, bool create_dirs) {
  if (path.empty()) throw InputError("cannot write '': expected a file name");
  // A device or FIFO, reached through any links (/dev/stdout -> /proc/self/fd/1 -> a pipe): in place.
  if (struct stat first{}; ::stat(path.c_str(), &first) == 0 && (S_ISCHR(first.st_mode) || S_ISFIFO(first.st_mode)))
    return write_in_place(path, path, text);
  fs::path target(path);
  // A symlink (or a chain of them) is followed to the file it names; the link itself stays.
  std::error_code ec;
  for (int hops = 0; fs::is_symlink(fs::symlink_status(target, ec)); ++hops) {
    if (hops == 40) throw InputError("cannot write '" + path + "': too many levels of symbolic links");
    fs::path to = fs::read_symlink(target, ec);
    if (ec) throw InputError("cannot write '" + path + "': " + ec.message());
    target = to.is_absolute() ? to : target.parent_path() / to;
  }
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  if (create_dirs && !dir.empty()) {
    fs::create_directories(dir, ec);
    if (ec) throw InputError("cannot write '" + path + "': cannot create folder '" + dir.string() + "': " + ec.message());
  }
  struct stat st{};
  if (::stat(target.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) throw InputError("cannot write '" + path + "': it is a folder; expected a file name");
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) return write_in_place(path, target.string(), text);
    if (!S_ISREG(st.st_mode))
      throw InputError("cannot write '" + path + "': not a regular file, character device or FIFO");
    return write_replacing(path, target, text);
  }
  if (errno != ENOENT) throw InputError("cannot write '" + path + "': " + errno_text(errno));
  struct stat dst{};
  if (::stat(dir.c_str(), &dst) != 0 || !S_ISDIR(dst.st_mode))
    throw InputError("cannot write '" + path + "': folder '" + dir.string() + "' does not exist");
  write_replacing(path, target, text);
}

FileLock::FileLock(const std::string& path, const std::string& what) {
  std::error_code ec;
  const fs::path p(path);
  if (p.has_parent_path()) fs::create_directories(p.parent_path(), ec);
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw InputError("cannot create the lock file '" + path + "': " + errno_text(errno));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int e = errno;
    ::close(fd_);
    fd_ = -1;
    if (e == EWOULDBLOCK)
      throw InputError(what + " is already running (lock '" + path + "' is held); wait for it to finish, then run again");
    throw InputError("cannot lock '" + path + "': " + errno_text(e));
  }
}

FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the lock
}

std::vector<std::string> list_files(const std::string& dir, const std::vector<std::string>& extensions,
                                    const std::string& what) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw InputError(what + " '" + dir + "': no such folder");
  std::vector<std::string> out;
  fs::directory_iterator it(dir, ec), end;
  if (ec) throw InputError(what + " '" + dir + "': cannot list the folder: " + ec.message());
  for (; it != end; it.increment(ec)) {  // the non-throwing increment
    if (ec) throw InputError(what + " '" + dir + "': cannot list the folder: " + ec.message());
    const std::string name = it->path().filename().string();
    for (const auto& ext : extensions)
      if (name.size() > ext.size() && name.compare(name.size() - ext.size(), ext.size(), ext) == 0 &&
          !fs::is_directory(it->path(), ec)) {
        out.push_back(it->path().string());
        break;
      }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string cache_dir() {
  if (const char* d = std::getenv("ROOFTOP_CACHE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/rooftop";
  const char* home = std::getenv("HOME");  // the rule of scripts/fetch-model.sh
  return std::string(home && *home ? home : ".") + "/.cache/rooftop";
}

}  // namespace rooftop
