// Plugin discovery in a child process: loading a library runs its code (constructors, the
// description function), and code that crashes, calls exit() or never returns would take the
// command down with it, naming nothing. The files are first loaded, in order, by one forked
// child that reports over a pipe which file it starts and which it finished (with what the file
// holds); the parent then loads, when it needs them, only files the child came back from. When the child dies or hangs, the file it had
// started is the culprit, and a new child goes on with the files after it, so the common case
// costs one fork for the whole scan.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "dualgap/api.hpp"

namespace dualgap {

struct ProbeOptions {
  /// Longest time one file may take to load in the child before it is killed and reported.
  double timeout_s = 60;
};

struct ProbeReport {
  /// Per file: "" when the child loaded it (or refused it with an error) and came back;
  /// otherwise what happened, as a sentence without the file name ("loading it crashed ...").
  std::vector<std::string> problems;
  /// Per file: what `load` returned in the child for it (made printable, one line), "" for a
  /// file with a problem. The parent learns what a file holds without loading it itself.
  std::vector<std::string> answers;
  /// Set when no child could be started (fork or pipe failed): the files were not probed.
  std::string not_probed;
};

/// Calls `load(files[i])` for every file in a forked child and reports, per file, whether the
/// child came back, and what `load` returned. `load` catches the errors by which the loader refuses a file (the parent
/// gets the same error when it loads the file itself); an exception out of `load` is a fault of
/// the file's own code: its problem is "loading it " + what(), and the child, whose state that
/// exception may have left broken, ends. The child's stdout and stderr are captured: the last
/// lines a failing file printed are quoted in its problem.
using ProbeLoad = std::function<std::string(const std::string&)>;
DUALGAP_API ProbeReport probe_in_child(const std::vector<std::string>& files, const ProbeLoad& load,
                                       const ProbeOptions& options = {});

}  // namespace dualgap
