// The command table: every command of `dualgap`, in the order the general usage lists them.
// A new command is one entry here plus its options and run functions (entries.hpp).
#include "cli/entries.hpp"
#include "scaffold/new_plugin.hpp"

namespace dualgap::cli {

namespace {

Positional results(const std::string& what = "run.json files or results folders (searched recursively)") {
  return {"results", "RESULTS", what, true, true, nullptr};
}

}  // namespace

const std::vector<Command>& commands() {
  static const std::vector<Command> table = {
      {"run", "EXPERIMENT.yaml [options]",
       "run every solver of an experiment, write runs/<name>/<run>/run.json (--out)",
       run_options,
       {{"experiment", "EXPERIMENT.yaml", "an experiment file", true, false, nullptr}},
       "The experiment YAML has: name, data, features, oracle, problem, solvers, stop, record, repeats,\n"
       "seed, sweep, executor (see docs/experiments.md). Exit status: 0 ok, 1 a run failed, 2 invalid configuration\n"
       "or the results folder in use, 128+N stopped by signal N (the folder resumes).\n",
       run_main, run_internal_options},
      {"validate", "EXPERIMENT.yaml [options]",
       "check the experiment and print the expanded runs; runs nothing",
       validate_options,
       {{"experiment", "EXPERIMENT.yaml", "an experiment file", true, false, nullptr}},
       "Checks the experiment file and every plugin parameter, then prepares each distinct data set once\n"
       "(as run would: loaded, and through the feature chain as far as a plugin's rules against the data\n"
       "need it), checks the plugins' parameters against it (e.g. one value per class) and prints its\n"
       "counts. Exit status: 0 valid, 1 a data file is malformed, 2 invalid configuration.\n",
       validate_main},
      {"status", "RESULTS... [--json]",
       "done / failed / running / pending runs, and the Slurm jobs' states",
       status_options,
       {results("results folders, or one experiment's folder")},
       "For each experiment under RESULTS (a results folder or one experiment's folder): how many runs\n"
       "finished (converged: status done; stopped by a budget: status budget, a limit of stop:), diverged,\n"
       "failed, timed out, were interrupted, are running, are pending (listed in a Slurm submission, not\n"
       "started) and are damaged\n"
       "(a run.json that is not a valid run record: named on stderr). Then who holds the folder's lock,\n"
       "and for Slurm submissions the job ids with the states squeue and sacct report.\n"
       "Exit status 0; 1 when a submission's record (.slurm/*/submission.json) cannot be read (named).\n",
       status_main},
      {"plugins", "[--kind KIND] [--json] [--paths]",
       "list the plugins found on the plugin path",
       plugins_options,
       {},
       "Lists every plugin found on the plugin path with its file, and the files that failed to load\n"
       "(each is loaded in a separate process first: one that crashes or exits is named, not loaded).\n"
       "Plugin path: the build tree, the install tree, then the folders of DUALGAP_PLUGIN_PATH\n"
       "(colon-separated); a later folder wins when two plugins of a kind have one name.\n",
       plugins_main},
      {"describe", "PLUGIN [--kind KIND] [--markdown | --readme FILE [--check]]",
       "print a plugin's summary and parameter schema",
       describe_options,
       {{"plugin", "PLUGIN", "a plugin name (see 'dualgap plugins')", true, false, nullptr}},
       "Prints the summary, the plugin's file, the oracle interfaces a solver needs or an oracle\n"
       "offers (with the loaded plugins on the other side) and the parameter schema (name, type,\n"
       "default, range, doc).\n"
       "--markdown prints the schema as the Markdown table of the plugin's README; --readme FILE writes\n"
       "that table into FILE between the lines <!-- params:begin --> and <!-- params:end -->, and with\n"
       "--check only compares them. Exit status: 0 ok (the table as written), 1 the README's table differs\n"
       "(its first differing line is named) or the README has no such lines, 2 bad usage or no such plugin.\n"
       "Every README of the dualgap tree: cmake --build build --target params_tables.\n",
       describe_main},
      {"compare", "RESULTS... [options]",
       "tables, HTML report and figures from recorded runs",
       compare_options,
       {results()},
       "See docs/compare.md. Exit status: 0 ok, 1 no readable run or a failure (I/O, plotting), 2 bad usage.\n",
       compare_main},
      {"evaluate", "RESULTS... [--data KEY=VALUE]... [--tag NAME]",
       "re-score finished runs from their saved iterates (e.g. on another test file)",
       evaluate_options,
       {results("run folders or run.json files")},
       "Re-scores finished runs from their saved iterates (record.iterates) with the core's objective,\n"
       "without running any solver, and writes the results as new curve columns NAME@TAG into each\n"
       "run.json (atomically, holding the results folder's lock). Without --data the recomputed primal\n"
       "and test error are compared with the recorded ones. An iterate whose size differs from its\n"
       ".npy header is refused; so is a run whose data files changed since it ran (their content\n"
       "hashes differ from run.json's data_hashes) unless --allow-changed-data.\n"
       "Exit status: 0 every run re-scored, 1 some could not be, 2 bad usage, a folder in use, or\n"
       "changed data.\n",
       evaluate_main},
      {"check", "RESULTS... [options]",
       "evaluate the papers' claims (experiments/*/claims.yaml) on recorded runs",
       check_options,
       {results()},
       "Evaluates a paper's claims (claims.yaml, docs/check.md) on recorded runs: per claim holds, fails\n"
       "or not measurable, with the measured figures beside the paper's. Exit status: 0 when every\n"
       "measurable claim holds, 1 when one fails (or, with --strict, cannot be measured), 2 bad usage.\n",
       check_main},
      {"reproduce", "FOLDER [--scale ci|full] [--executor slurm] [--jobs N] [--out DIR] [--from RESULTS] [--write]",
       "reproduce an experiment folder: fetch its data, run it, check its claims, draw its figures",
       reproduce_options,
       {{"folder", "FOLDER", "an experiment folder (experiments/NAME: its YAML files and claims.yaml)", true, false, nullptr}},
       "In order: 'data fetch' for the data sets the folder's experiments name that are not under\n"
       "$DUALGAP_DATA yet; 'run' of each experiment file claims.yaml's 'protocol' lists (the folder's only\n"
       "experiment file when it lists none; at --scale ci the files of its ci profile, with their --set\n"
       "values) into OUT/FOLDER, resuming what is there, --jobs N runs at once; the claims of\n"
       "claims.yaml (as 'check'); the figures its 'figures:' list declares (docs/reproduce.md), drawn in\n"
       "the paper's layout. Then prints, as a unified diff, how the README section it would write (the\n"
       "figures with one sentence per panel, the claims table, between <!-- reproduce:begin --> and\n"
       "<!-- reproduce:end -->) and the experiments index row differ from the committed ones.\n"
       "--from RESULTS runs nothing and renders recorded runs (results/FOLDER: the reference runs).\n"
       "--write writes the figures beside the README, the section and the index (each atomically).\n"
       "Exit status: 0 done, 1 a run failed or no run could be read, 2 bad usage or configuration.\n",
       reproduce_main},
      {"results", "pack SRC DST",
       "pack a results folder as reference runs: run.json.gz without iterates",
       nullptr,  // no option but --help
       {{"action", "ACTION", "pack", true, false, [] { return choice({"pack"}, false); }},
        {"src", "SRC", "a results folder (searched recursively for run.json)", true, false, nullptr},
        {"dst", "DST", "the folder the packed records go to (the same relative folders)", true, false, nullptr}},
       "Reads every run record under SRC with the checked reader (a damaged one stops the pack before\n"
       "anything is written) and writes it to DST/<same relative folder>/run.json.gz: the curves and\n"
       "everything else, without the iterates (so it cannot be re-scored). compare, check, status and\n"
       "reproduce --from read run.json.gz as they read run.json (docs/reproduce.md). A DST holding a run\n"
       "record this pack would not rewrite is refused before anything is written (a stale run would be\n"
       "read beside the new ones): pack into a new folder, or repack the same SRC.\n"
       "Exit status: 0 packed, 1 a damaged record, a stale DST, no record or I/O, 2 bad usage.\n",
       results_main},
      {"data", "list [--json] | fetch NAME... [--to DIR] [limits]",
       "the real data sets, their sources and checksums; download and verify them",
       data_options,
       {{"action", "ACTION", "list or fetch", true, false, [] { return choice({"list", "fetch"}, false); }},
        {"names", "NAME", "for fetch: data sets of 'dualgap data list', or all", false, true, nullptr}},
       "fetch downloads into $DUALGAP_DATA/NAME/ (or DIR/NAME/), resumes partial downloads (*.part, HTTP\n"
       "Range), and keeps a file only when its sha256 matches the registry (data/registry.yaml).\n"
       "DUALGAP_DATA_MIRROR=URL fetches every file from URL/NAME/FILE instead of its public source.\n"
       "A server that sends too much, or too slowly, is stopped (--timeout, --low-speed, --max-bytes);\n"
       "a file's registered size caps its download.\n",
       data_main},
      {"new-plugin", "KIND NAME [--dir DIR] [--force]",
       "write a working plugin skeleton (dataset, features, oracle, solver)",
       new_plugin_options,
       {{"kind", "KIND", "the kind of plugin: dataset, features, oracle or solver", true, false,
         [] { return choice({"dataset", "features", "oracle", "solver"}, false); }},
        {"name", "NAME", std::string("the plugin's name: ") + scaffold::kPluginNameRule, true, false,
         [] { return text_if(scaffold::valid_plugin_name, scaffold::kPluginNameRule); }}},
       "Writes a working plugin skeleton of KIND named NAME into DIR (default ./NAME): NAME.cpp,\n"
       "CMakeLists.txt, README.md, experiment.yaml and test_NAME.cpp (the conformance checks).\n"
       "The plugin's class is NAME in CamelCase ending in the kind (my_chain: MyChainOracle), a form\n"
       "no other name of the skeleton takes, so any such NAME builds unchanged, inside the dualgap\n"
       "tree (plugins/KIND/NAME) or on its own against an installed dualgap:\n"
       "  cmake -S NAME -B NAME/build -DCMAKE_PREFIX_PATH=<dualgap prefix> && cmake --build NAME/build\n"
       "  ctest --test-dir NAME/build\n"
       "  DUALGAP_PLUGIN_PATH=$PWD/NAME/build/plugins dualgap describe NAME\n"
       "Exit status: 0 written, 1 a file exists (without --force), no templates or I/O, 2 bad usage.\n",
       new_plugin_main},
  };
  return table;
}

}  // namespace dualgap::cli
