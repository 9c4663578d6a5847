// The run records (run.json) of a results folder: the one walk that finds them and the one
// checked reader that reads them, shared by compare, check, evaluate and status, below the layers
// that use what the records say.
//
// A results folder is shared and may be damaged or edited, so no value of a run.json is used
// before the whole document has been checked against the schema below; a document that does not
// match is refused with an error naming the file, the key path and what was expected
// (RunFileError), and each command decides what a damaged run means for it (compare and check
// skip it with a warning, evaluate fails on it without writing, status counts it as damaged).
//
// The schema (dualgap.run/1 and /2; keys not listed are kept unchecked and unused):
//   schema    required, "dualgap.run/1" or "dualgap.run/2"
//   status    required, a run status (done, budget, timeout, diverged, failed, interrupted, running)
//   curve     required, an object of columns: arrays of numbers or null, all of one length
//   strings   experiment, run_id, solver, label, message, problem_key, group_key, config_hash,
//             objective_key, data_content_hash
//   integers  repeat, solver_index (>= 0)
//   approximate  true or false
//   config, objective, environment, data_info: objects; summary: an object of numbers or null
//   sampling  null or an object whose budget is a string
//   iterates  null or {mode: final|all, model: w|W|ensemble|scores, saved: [{row: a row of the
//             curve, passes: number, files: {name: a relative path inside the run folder},
//             l_alpha: number}]}
//   evaluations  an array of objects
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "dualgap/json.hpp"

#include "dualgap/api.hpp"

namespace dualgap {

/// The largest run record any command reads, as stored and (run.json.gz) once decompressed: a
/// record past it (or a gzip stream that inflates past it) is refused before it is parsed.
inline constexpr std::uintmax_t kMaxRunBytes = std::uintmax_t{256} << 20;

/// The file name of a run record, plain or gzip-compressed (a packed reference results folder).
inline constexpr const char* kRunFile = "run.json";
inline constexpr const char* kRunFileGz = "run.json.gz";

/// True for "run.json" and "run.json.gz".
DUALGAP_API bool is_run_file_name(const std::filesystem::path& name);

/// The record of a run folder: run.json, else run.json.gz; empty when it has neither.
DUALGAP_API std::filesystem::path run_file_in(const std::filesystem::path& run_dir);

/// run.json / run.json.gz files named by `inputs` (files, or directories searched recursively),
/// sorted; a folder holding both forms counts once (its run.json). Throws std::runtime_error for
/// a path that does not exist.
DUALGAP_API std::vector<std::filesystem::path> find_run_files(const std::vector<std::string>& inputs);

/// The text of a run record: a regular file of at most kMaxRunBytes; a name ending in .gz is
/// decompressed as it is read (decompress with a limit), and refused once the stream passes
/// kMaxRunBytes (a gzip bomb) or is not valid gzip. Throws FileError / DataError naming the file.
DUALGAP_API std::string read_run_text(const std::string& path);

/// A run.json that is not a valid run record: "FILE: KEY.PATH: expected WHAT, found WHAT".
class DUALGAP_API RunFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// How the curve is kept: as columns of doubles (null becomes NaN; compare, check, status), or
/// inside the document as read (evaluate, which writes the document back).
enum class CurveMode { columns, document };

struct RunFile {
  std::string path;
  /// The checked document; in CurveMode::columns without its "curve".
  nlohmann::json doc;
  /// CurveMode::columns: the curve's columns. Every column has `rows` values.
  std::map<std::string, std::vector<double>> columns;
  std::size_t rows = 0;  ///< checkpoints: the common length of the curve's columns
};

/// Reads and checks <path> (a run.json). Throws RunFileError for a damaged or foreign document,
/// std::runtime_error when the file cannot be read.
DUALGAP_API RunFile read_run_file(const std::string& path, CurveMode mode);

/// The same on the text of a run.json (`path` names it in messages).
DUALGAP_API RunFile parse_run_file(const std::string& text, const std::string& path, CurveMode mode);

/// Checks what rebuilding the run's problem reads of its config (evaluate): the data, features,
/// oracle and solver sections ({plugin, params}), the seeds, problem and record. Throws RunFileError.
DUALGAP_API void check_run_config(const RunFile& run);

/// Copies every run record under `src` (a results folder, searched recursively) into `dst`, in
/// the same relative folders, as run.json.gz: the checked document with its curves and without
/// its iterates (a reference copy reads as the run, but cannot be re-scored). Each file is
/// written atomically, one after the other; nothing is written when a record is damaged
/// (RunFileError) or when DST already holds a run record this pack would not rewrite
/// (std::runtime_error: a stale one would be read beside the new ones; repacking the same SRC
/// into the same DST is allowed). Returns the number of records written.
DUALGAP_API std::size_t pack_runs(const std::string& src, const std::string& dst);

/// The statuses a run.json may record.
DUALGAP_API const std::vector<std::string>& run_statuses();

/// "FILE: KEY.PATH: expected WHAT, found VALUE" for a value a reader checks beyond the schema
/// (e.g. evaluate's need of a config); `found` may be null for a missing key.
[[noreturn]] DUALGAP_API void run_file_error(const std::string& path, const std::string& key_path,
                                             const std::string& expected, const nlohmann::json* found);

}  // namespace dualgap
