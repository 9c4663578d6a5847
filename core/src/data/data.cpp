#include "dualgap/data.hpp"

#include <limits>
#include <stdexcept>
#include <string>

namespace dualgap {

const DenseMatrix& FeatureMatrix::dense() const {
  if (is_sparse_) throw std::logic_error("FeatureMatrix::dense() called on a sparse matrix");
  return dense_;
}
const SparseMatrix& FeatureMatrix::sparse() const {
  if (!is_sparse_) throw std::logic_error("FeatureMatrix::sparse() called on a dense matrix");
  return sparse_;
}
DenseMatrix& FeatureMatrix::dense_mut() {
  if (is_sparse_) throw std::logic_error("FeatureMatrix::dense_mut() called on a sparse matrix");
  csc_.reset();
  return dense_;
}
SparseMatrix& FeatureMatrix::sparse_mut() {
  if (!is_sparse_) throw std::logic_error("FeatureMatrix::sparse_mut() called on a dense matrix");
  csc_.reset();
  return sparse_;
}

const SparseColMatrix& FeatureMatrix::csc() const {
  if (!csc_) {
    auto m = std::make_shared<SparseColMatrix>();
    if (is_sparse_) {
      *m = sparse_;
    } else {
      *m = dense_.sparseView();
    }
    m->makeCompressed();
    csc_ = std::move(m);
  }
  return *csc_;
}

DenseMatrix FeatureMatrix::to_dense() const { return is_sparse_ ? DenseMatrix(sparse_) : dense_; }

double FeatureMatrix::row_dot(Eigen::Index r, const double* v) const {
  if (!is_sparse_) {
    return dense_.row(r).dot(Eigen::Map<const Eigen::RowVectorXd>(v, dense_.cols()));
  }
  double s = 0;
  for (SparseMatrix::InnerIterator it(sparse_, r); it; ++it) s += it.value() * v[it.index()];
  return s;
}

void FeatureMatrix::row_axpy(Eigen::Index r, double alpha, double* out) const {
  if (!is_sparse_) {
    Eigen::Map<Eigen::RowVectorXd>(out, dense_.cols()) += alpha * dense_.row(r);
    return;
  }
  for (SparseMatrix::InnerIterator it(sparse_, r); it; ++it) out[it.index()] += alpha * it.value();
}

double FeatureMatrix::row_sq_norm(Eigen::Index r) const {
  if (!is_sparse_) return dense_.row(r).squaredNorm();
  double s = 0;
  for (SparseMatrix::InnerIterator it(sparse_, r); it; ++it) s += it.value() * it.value();
  return s;
}

FeatureMatrix FeatureMatrix::select_rows(const std::vector<std::int64_t>& rows) const {
  const auto m = static_cast<Eigen::Index>(rows.size());
  if (!is_sparse_) {
    DenseMatrix out(m, dense_.cols());
    for (Eigen::Index k = 0; k < m; ++k) out.row(k) = dense_.row(rows[k]);
    return FeatureMatrix(std::move(out));
  }
  // The selected rows copied into an exact CSR (their nonzeros counted first): no triplet list
  // and no transposed temporary, which held 3-4 times the selection while it was built.
  std::int64_t nnz = 0;
  for (auto r : rows)
    nnz += sparse_.isCompressed() ? sparse_.outerIndexPtr()[r + 1] - sparse_.outerIndexPtr()[r] : sparse_.innerNonZeroPtr()[r];
  if (nnz > std::numeric_limits<int>::max()) throw std::runtime_error("select_rows: more than 2^31 nonzeros");
  SparseMatrix out(m, sparse_.cols());
  out.resizeNonZeros(static_cast<Eigen::Index>(nnz));
  int* outer = out.outerIndexPtr();
  outer[0] = 0;
  for (Eigen::Index k = 0; k < m; ++k) {
    int at = outer[k];
    // An uncompressed source row holds innerNonZeros entries; InnerIterator reads those in order.
    for (SparseMatrix::InnerIterator it(sparse_, rows[static_cast<std::size_t>(k)]); it; ++it, ++at) {
      out.innerIndexPtr()[at] = static_cast<int>(it.index());
      out.valuePtr()[at] = it.value();
    }
    outer[k + 1] = at;
  }
  return FeatureMatrix(std::move(out));
}

Examples Examples::select(const std::vector<std::size_t>& examples) const {
  Examples out;
  out.num_classes = num_classes;
  std::vector<std::int64_t> rows;
  if (structured()) out.unit_offset.push_back(0);
  if (has_edges()) out.edge_offset.push_back(0);
  for (auto i : examples) {
    for (auto u = unit_begin(i); u < unit_end(i); ++u) {
      rows.push_back(u);
      out.y.push_back(y[u]);
    }
    if (structured()) out.unit_offset.push_back(static_cast<std::int64_t>(rows.size()));
    if (has_edges()) {
      auto [b, e] = edge_range(i);
      for (auto k = b; k < e; ++k) out.edges.push_back(edges[k]);
      out.edge_offset.push_back(static_cast<std::int64_t>(out.edges.size()));
    }
    if (!group.empty()) out.group.push_back(group[i]);
  }
  out.X = X.select_rows(rows);
  return out;
}

void Examples::check(const std::string& what) const {
  auto fail = [&](const std::string& msg) { throw std::runtime_error(what + ": " + msg); };
  if (static_cast<std::size_t>(X.rows()) != y.size())
    fail("feature matrix has " + std::to_string(X.rows()) + " rows but there are " +
         std::to_string(y.size()) + " labels");
  for (std::size_t u = 0; u < y.size(); ++u)
    if (y[u] < 0 || y[u] >= num_classes)
      fail("label " + std::to_string(y[u]) + " of unit " + std::to_string(u) +
           " is outside 0.." + std::to_string(num_classes - 1));
  if (!unit_offset.empty()) {
    if (unit_offset.front() != 0 || unit_offset.back() != static_cast<std::int64_t>(y.size()))
      fail("unit offsets do not cover the units");
    for (std::size_t i = 0; i + 1 < unit_offset.size(); ++i)
      if (unit_offset[i + 1] <= unit_offset[i]) fail("example " + std::to_string(i) + " has no units");
  }
  if (!edge_offset.empty()) {
    if (edge_offset.size() != num_examples() + 1) fail("edge offsets do not match the examples");
    for (std::size_t i = 0; i < num_examples(); ++i)
      for (auto k = edge_offset[i]; k < edge_offset[i + 1]; ++k) {
        const auto [a, b] = edges[k];
        if (a < 0 || b < 0 || a >= units_of(i) || b >= units_of(i))
          fail("edge " + std::to_string(k) + " of example " + std::to_string(i) +
               " names a unit outside the example");
      }
  }
  if (!group.empty() && group.size() != num_examples()) fail("group ids do not match the examples");
}

}  // namespace dualgap
