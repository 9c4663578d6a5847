// How the core opens files. Results folders, data folders and experiment files are shared (a
// common disk, a cluster, a co-author's copy), so a name in them may be a FIFO, a device, a
// folder, a symbolic link or a hard link placed there by someone else, and a disk may fill up
// during a write. Every file the core reads whole or writes goes through these functions:
//
//   reading   open_regular_file / read_file: only a regular file, never blocking on a FIFO.
//   writing   AtomicFile / write_file_atomic: a temporary in the same folder (O_CREAT|O_EXCL|
//             O_NOFOLLOW, a unique name), written whole, fsynced, renamed onto the name, folder
//             fsynced. On any failure the temporary is removed, the old file is left as it was
//             and FileError names the file and the system's reason.
//   in place  open_in_place: the few files that must be written where they are (the folder
//             lock, the partial log of a running run, its stderr.log, a download resumed):
//             never through a symbolic link, never into a file with a second name.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>

#include "dualgap/api.hpp"

namespace dualgap {

/// A failed file operation. what(): "PATH: WHAT: REASON (errno NAME)".
struct DUALGAP_API FileError : std::runtime_error {
  FileError(const std::string& path, const std::string& what, int err);
  FileError(const std::string& path, const std::string& what);  ///< a refusal without an errno
  int error = 0;  ///< the errno, 0 for a refusal
};

/// "No space left on device (errno ENOSPC)": how every message of a failed file operation
/// gives the system's reason.
DUALGAP_API std::string system_reason(int err);

/// An open file descriptor, closed when destroyed.
class DUALGAP_API Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd();
  Fd(Fd&& o) noexcept : fd_(o.release()) {}
  Fd& operator=(Fd&& o) noexcept;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  int release() {
    const int f = fd_;
    fd_ = -1;
    return f;
  }
  explicit operator bool() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

/// Opens an existing file for reading. Refuses what is not a regular file (a FIFO, a device, a
/// socket, a folder) with "PATH: not a regular file (a FIFO)": a FIFO never blocks the opening
/// (O_NONBLOCK, cleared once the file is known to be regular).
DUALGAP_API Fd open_regular_file(const std::string& path);

/// The whole content of a regular file (open_regular_file). Throws FileError naming the file.
DUALGAP_API std::string read_file(const std::string& path);

/// The same, for a reader with a size limit: a file larger than max_bytes is refused before it
/// is read, and one that grows past it while it is read is not read on, both with
/// "PATH: N bytes: larger than LIMIT" (LIMIT, e.g. "the 16 MB a YAML file dualgap reads may have").
DUALGAP_API std::string read_file(const std::string& path, std::uintmax_t max_bytes, std::string_view limit);
/// read() on `fd` until `n` bytes or the end of the file, again after a signal: the bytes read,
/// fewer than n only at the end. A failure throws FileError(path, what, errno).
DUALGAP_API std::size_t read_fully(int fd, void* dst, std::size_t n, const std::string& path,
                                   const std::string& what = "cannot read");

/// /dev/null opened for writing: where a child's discarded output goes (base/process).
DUALGAP_API Fd open_null_device();

/// What an AtomicFile does when its name exists at commit().
enum class IfExists {
  replace,  ///< the new file takes the name (the old one stays readable until then)
  refuse    ///< commit() throws "already exists": never clobbers (new-plugin's skeleton)
};

/// An output file that appears whole or not at all. The bytes go to a temporary in the folder of
/// `path` (created if needed); commit() makes them the file. Without commit() (an exception, a
/// failed write) the temporary is removed and the file at `path` is left as it was.
/// Whether a file name has the form of an AtomicFile's temporary (left behind by a writer that
/// was killed before commit or abort).
DUALGAP_API bool is_temporary_name(const std::string& name);

class DUALGAP_API AtomicFile {
 public:
  explicit AtomicFile(const std::string& path, IfExists if_exists = IfExists::replace, mode_t mode = 0666);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  /// Appends bytes; throws FileError naming `path` when the system refuses them.
  void write(std::string_view bytes);
  /// The same file as a stream, for writers that format as they go; an error is kept and thrown
  /// by commit().
  std::ostream& stream();
  /// The temporary's descriptor, for a child process that writes the bytes itself (the figure).
  /// Buffered bytes are written first.
  int fd();
  /// fsync, then the rename (IfExists::refuse: a link that fails when the name exists), then an
  /// fsync of the folder. Throws FileError naming `path`; the temporary is then removed.
  void commit();

  const std::string& path() const;
  const std::string& temp_path() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// `content` written as `path` through an AtomicFile.
DUALGAP_API void write_file_atomic(const std::string& path, std::string_view content,
                                   IfExists if_exists = IfExists::replace);

/// How open_in_place opens its file.
enum class InPlace {
  fresh,   ///< a new empty file: an old name (file or link) is unlinked, then O_CREAT|O_EXCL
  append,  ///< written at its end, created if missing (a download resumed)
  lock     ///< read and written, created if missing (the folder lock)
};

/// A file the core must write where it is (see the header comment). Never through a symbolic
/// link (O_NOFOLLOW) and never into a file that has another name (a hard link): both refused
/// with an error naming the file; what is not a regular file is refused without blocking.
DUALGAP_API Fd open_in_place(const std::string& path, InPlace how, mode_t mode = 0666);

/// Renames `from` onto `to` (the same folder) after an fsync of `from`, then fsyncs the folder:
/// how a file written in place (a finished download) becomes its final name.
DUALGAP_API void commit_rename(const std::string& from, const std::string& to);

}  // namespace dualgap
