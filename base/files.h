// Reading and writing the files a user names: bounded reads, and writes that never leave a
// half-written file and never replace a device, a FIFO or a symlink by a regular file.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "base/errors.h"
#include "base/limits.h"

namespace rooftop {

// The whole of a regular file, refused with InputError when it is missing, a folder, not a regular
// file, or larger than max_bytes. `what` names it in messages ("HF config", "calibration file").
std::string read_text_file(const std::string& path, const std::string& what,
                           int64_t max_bytes = limits::kTextFileBytes);

// Writes `text` to `path` as a user means it:
// - a new path or a regular file: a temp file in the same folder, then rename (atomic: readers see
//   the old or the new content, never half); an existing file keeps its permission bits;
// - a symlink: written through to the file it points to, by the same rules (the link stays);
// - a character device or a FIFO (/dev/null, /dev/stdout, a pipe): written in place, every error
//   reported (/dev/full: "No space left on device");
// - a folder, a socket or a block device, a missing parent folder: InputError, nothing written.
// create_dirs makes missing parent folders first (the cache's files).
void write_file_atomically(const std::string& path, const std::string& text, bool create_dirs = false);

// An exclusive lock on `path` (created, folders too) for this object's lifetime, taken without
// waiting: InputError "<what> is already running ..." when another process holds it. The lock goes
// with the process, so a killed run never leaves it stuck.
class FileLock {
 public:
  FileLock(const std::string& path, const std::string& what);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_ = -1;
};

// The files of `dir` whose names end in one of `extensions` (".yaml"), sorted; entries that cannot be
// examined (a link loop, no permission) are listed too, so that reading them gives the clear error.
// InputError naming `what` when `dir` is not a readable folder.
std::vector<std::string> list_files(const std::string& dir, const std::vector<std::string>& extensions,
                                    const std::string& what);

// The per-user cache folder: $ROOFTOP_CACHE_DIR, else $XDG_CACHE_HOME/rooftop, else ~/.cache/rooftop.
std::string cache_dir();

}  // namespace rooftop
