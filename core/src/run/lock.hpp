// The lock on an experiment's results folder: one `dualgap run` (or `dualgap evaluate`) at a time
// writes into it, so no finished run.json is overwritten and no partial file deleted by another
// process.
#pragma once

#include <stdexcept>
#include <string>

#include "dualgap/api.hpp"

namespace dualgap {

class DUALGAP_API FolderLock {
 public:
  enum class Mode {
    exclusive,  ///< a local `dualgap run`: nobody else may write here
    shared      ///< a task of a Slurm array: tasks share the folder (disjoint runs), locals may not
  };
  /// Locks <dir>/.lock (created if needed; a symbolic link, a hard link or anything but a regular
  /// file there is refused, never written through). When another process holds it: waits if
  /// `wait`, else throws LockBusy naming the holder (PID, host and `command`, written in the lock
  /// file).
  FolderLock(const std::string& dir, Mode mode, bool wait, const std::string& command = "dualgap run");
  ~FolderLock();
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

  /// "PID 123 on host h (dualgap run, since ...)", or "" when nobody holds the lock now (or it
  /// cannot be read: a link or a FIFO planted there is not opened).
  static std::string holder(const std::string& dir);

 private:
  int fd_ = -1;
};

struct DUALGAP_API LockBusy : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace dualgap
