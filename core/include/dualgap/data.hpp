// Data model shared by every plugin.
//
// One representation serves multi-class, sequence and graph problems. The rows of the feature
// matrix are *units*: for multi-class data a unit is an example; for sequence data (OCR words)
// a unit is a position (a letter); for graph data (segmentation) a unit is a node (a
// superpixel). Example i owns the units [unit_begin(i), unit_end(i)). Graph examples also own
// a list of edges between their units (local indices). Labels are per unit, 0..K-1.
//
// Feature matrices are either dense (row-major) or sparse (CSR, row-major). A column-major
// (CSC) copy of a sparse matrix is built once, on demand, for coordinate-descent solvers.
#pragma once

#include "dualgap/eigen_abi.hpp"  // first: pins Eigen's alignment (plugin ABI)
#include <Eigen/Dense>
#include <Eigen/Sparse>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "dualgap/api.hpp"
#include "dualgap/json.hpp"

namespace dualgap {

using DenseMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using SparseMatrix = Eigen::SparseMatrix<double, Eigen::RowMajor, int>;  // CSR
using SparseColMatrix = Eigen::SparseMatrix<double, Eigen::ColMajor, int>;  // CSC
using Vector = Eigen::VectorXd;

/// A feature matrix: dense row-major or sparse CSR; rows are units, columns are features.
class DUALGAP_API FeatureMatrix {
 public:
  FeatureMatrix() = default;
  explicit FeatureMatrix(DenseMatrix dense) : dense_(std::move(dense)), is_sparse_(false) {}
  // Eigen 3.4's SparseMatrix has no move constructor or move assignment: std::move of one is a
  // deep copy (the data twice for a moment). A matrix given as an rvalue is therefore taken by
  // swap, and a FeatureMatrix (and so an Examples, a Data) moves without copying its values.
  explicit FeatureMatrix(const SparseMatrix& sparse) : sparse_(sparse), is_sparse_(true) {}
  explicit FeatureMatrix(SparseMatrix&& sparse) : is_sparse_(true) { sparse_.swap(sparse); }
  FeatureMatrix(const FeatureMatrix&) = default;
  FeatureMatrix& operator=(const FeatureMatrix&) = default;
  FeatureMatrix(FeatureMatrix&& o) noexcept
      : dense_(std::move(o.dense_)), is_sparse_(o.is_sparse_), csc_(std::move(o.csc_)) {
    sparse_.swap(o.sparse_);
  }
  FeatureMatrix& operator=(FeatureMatrix&& o) noexcept {
    if (this != &o) {
      dense_ = std::move(o.dense_);
      SparseMatrix().swap(sparse_);  // frees this matrix's values
      sparse_.swap(o.sparse_);
      is_sparse_ = o.is_sparse_;
      csc_ = std::move(o.csc_);
    }
    return *this;
  }
  ~FeatureMatrix() = default;

  bool is_sparse() const { return is_sparse_; }
  Eigen::Index rows() const { return is_sparse_ ? sparse_.rows() : dense_.rows(); }
  Eigen::Index cols() const { return is_sparse_ ? sparse_.cols() : dense_.cols(); }
  /// Number of stored values (rows * cols when dense).
  std::int64_t nonzeros() const { return is_sparse_ ? sparse_.nonZeros() : dense_.size(); }

  const DenseMatrix& dense() const;    ///< requires !is_sparse()
  const SparseMatrix& sparse() const;  ///< requires is_sparse()
  DenseMatrix& dense_mut();
  SparseMatrix& sparse_mut();

  /// Column-major copy (CSC), built on first call and kept. Works for dense input too.
  const SparseColMatrix& csc() const;
  /// A dense copy (row-major), whatever the storage.
  DenseMatrix to_dense() const;

  /// dot(row r, v) for a vector v of length cols().
  double row_dot(Eigen::Index r, const double* v) const;
  /// out += alpha * row r (out has length cols()).
  void row_axpy(Eigen::Index r, double alpha, double* out) const;
  /// Squared L2 norm of row r.
  double row_sq_norm(Eigen::Index r) const;
  /// Rows selected by index, in that order (same storage kind).
  FeatureMatrix select_rows(const std::vector<std::int64_t>& rows) const;

 private:
  DenseMatrix dense_;
  SparseMatrix sparse_;
  bool is_sparse_ = false;
  mutable std::shared_ptr<SparseColMatrix> csc_;
};

/// One split (train or test) of a data set.
struct DUALGAP_API Examples {
  FeatureMatrix X;               ///< one row per unit
  std::vector<int> y;            ///< one label per unit, 0..num_classes-1
  int num_classes = 0;
  /// unit_offset[i] .. unit_offset[i+1] are the units of example i. Empty: one unit per example.
  std::vector<std::int64_t> unit_offset;
  /// edge_offset[i] .. edge_offset[i+1] index `edges` for example i (graph data only).
  std::vector<std::int64_t> edge_offset;
  /// Edges as pairs of *local* unit indices of their example.
  std::vector<std::pair<int, int>> edges;
  /// Optional per-example group id (e.g. OCR fold), same length as num_examples() or empty.
  std::vector<int> group;

  std::size_t num_examples() const {
    return unit_offset.empty() ? y.size() : unit_offset.size() - 1;
  }
  std::size_t num_units() const { return y.size(); }
  Eigen::Index num_features() const { return X.cols(); }
  bool structured() const { return !unit_offset.empty(); }
  std::int64_t unit_begin(std::size_t i) const {
    return unit_offset.empty() ? static_cast<std::int64_t>(i) : unit_offset[i];
  }
  std::int64_t unit_end(std::size_t i) const {
    return unit_offset.empty() ? static_cast<std::int64_t>(i) + 1 : unit_offset[i + 1];
  }
  int units_of(std::size_t i) const { return static_cast<int>(unit_end(i) - unit_begin(i)); }
  bool has_edges() const { return !edge_offset.empty(); }
  /// Edges of example i as [begin, end) into `edges`.
  std::pair<std::int64_t, std::int64_t> edge_range(std::size_t i) const {
    if (edge_offset.empty()) return {0, 0};
    return {edge_offset[i], edge_offset[i + 1]};
  }
  /// Selects examples (with all their units and edges), in the order given.
  Examples select(const std::vector<std::size_t>& examples) const;
  /// Throws std::runtime_error naming `what` when sizes or labels are inconsistent.
  void check(const std::string& what) const;
};

/// A data set: train and test splits plus a description for the results.
struct DUALGAP_API Data {
  std::string name;      ///< e.g. "usps"
  Examples train;
  Examples test;         ///< may be empty (no test error is recorded then)
  /// Where the data came from (paths, generator parameters, label map; a string is kept as
  /// {"description": ...}); the core adds what its pipeline applied.
  nlohmann::json source;
};

}  // namespace dualgap
