// Two-thread triangular sweeps over a supernodal Cholesky factor (supernodal_sweeps.hpp).
#include "host/linear/supernodal_sweeps.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <numeric>
#include <type_traits>

#include "host/exec/runtime_symbol.hpp"
#include "softik/exec/thread_pool.hpp"

namespace softik::detail {

namespace {

/// A supernode's fixed cost in the work estimate, in entries of L (its loop and product set-up).
constexpr double kSupernodeOverhead = 32;
/// The most subtrees the planner opens looking for a balanced split.
constexpr int kMaxExpansions = 256;

/// The BLAS the process loaded with CHOLMOD (runtime_symbol.hpp): the kernels CHOLMOD's own
/// sweeps call (d*), or their single-precision twins (s*), so that each half is as fast as
/// CHOLMOD's solve. Without them (no BLAS loaded), Eigen's products do the same work, ~1.2x
/// slower on one thread (measured with a 1M-entry L).
template <class T>
struct Blas {
  using Gemv = void(const char*, const int*, const int*, const T*, const T*, const int*, const T*, const int*, const T*,
                    T*, const int*);
  using Trsv = void(const char*, const char*, const char*, const int*, const T*, const int*, T*, const int*);
  using Gemm = void(const char*, const char*, const int*, const int*, const int*, const T*, const T*, const int*,
                    const T*, const int*, const T*, T*, const int*);
  using Trsm = void(const char*, const char*, const char*, const char*, const int*, const int*, const T*, const T*,
                    const int*, T*, const int*);
  static constexpr bool kDouble = std::is_same_v<T, double>;
  Gemv* gemv = runtime_symbol<Gemv>(kDouble ? "dgemv_" : "sgemv_", "libblas.so.3");
  Trsv* trsv = runtime_symbol<Trsv>(kDouble ? "dtrsv_" : "strsv_", "libblas.so.3");
  Gemm* gemm = runtime_symbol<Gemm>(kDouble ? "dgemm_" : "sgemm_", "libblas.so.3");
  Trsm* trsm = runtime_symbol<Trsm>(kDouble ? "dtrsm_" : "strsm_", "libblas.so.3");
  bool available() const { return gemv && trsv && gemm && trsm; }
};

template <class T>
const Blas<T>& blas() {
  static const Blas<T> b;
  return b;
}

constexpr int kIncrement = 1;

template <class T>
using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;
template <class T>
using Vector = Eigen::Matrix<T, Eigen::Dynamic, 1>;
template <class T>
using ConstBlock = Eigen::Map<const Matrix<T>, 0, Eigen::OuterStride<>>;
template <class T>
using Block = Eigen::Map<Matrix<T>, 0, Eigen::OuterStride<>>;

/// The supernodal elimination tree of a layout, with the work estimate of each supernode and of
/// each subtree.
struct EliminationTree {
  explicit EliminationTree(int ns)
      : parent(static_cast<size_t>(ns), -1),
        size(static_cast<size_t>(ns), 1),
        work(static_cast<size_t>(ns)),
        subtree(static_cast<size_t>(ns)),
        children(static_cast<size_t>(ns)) {}
  std::vector<int> parent, size;  ///< per supernode: its parent (-1: a root), its subtree's supernodes
  std::vector<double> work, subtree;
  std::vector<int> roots;
  std::vector<std::vector<int>> children;
  double total = 0;  ///< the work of the whole tree
  /// A postordered subtree is the range [first(k), k].
  int first(int k) const { return k - size[static_cast<size_t>(k)] + 1; }
};

/// The supernodal elimination tree: the parent of k owns k's first row below its own columns.
/// Also the work of each supernode, and in max_below the most rows below a supernode's own (of
/// those seen). False when the supernodes are not in a topological order.
bool find_parents(const SupernodalLayout& L, EliminationTree& tree, int& max_below) {
  const int ns = L.nsuper;
  std::vector<int> owner(static_cast<size_t>(L.n));  // column -> its supernode
  for (int k = 0; k < ns; ++k)
    for (int c = L.super[k]; c < L.super[k + 1]; ++c) owner[static_cast<size_t>(c)] = k;
  for (int k = 0; k < ns; ++k) {
    const int nscol = L.super[k + 1] - L.super[k], nsrow = L.pi[k + 1] - L.pi[k];
    max_below = std::max(max_below, nsrow - nscol);
    if (nsrow > nscol) {
      const int p = owner[static_cast<size_t>(L.s[L.pi[k] + nscol])];
      if (p <= k) return false;  // not a topological order
      tree.parent[static_cast<size_t>(k)] = p;
    }
    tree.work[static_cast<size_t>(k)] = static_cast<double>(nsrow) * nscol + kSupernodeOverhead;
  }
  return true;
}

/// Each subtree's size and work, the roots, each supernode's children and the total work.
/// Postordered: every subtree is the range [k - size + 1, k]. By induction over the tree this
/// holds exactly when no child's range starts before its parent's; false when it does not hold.
bool link_subtrees(EliminationTree& tree) {
  const int ns = static_cast<int>(tree.parent.size());
  tree.subtree = tree.work;
  for (int k = 0; k < ns; ++k)
    if (const int p = tree.parent[static_cast<size_t>(k)]; p >= 0) {
      tree.size[static_cast<size_t>(p)] += tree.size[static_cast<size_t>(k)];
      tree.subtree[static_cast<size_t>(p)] += tree.subtree[static_cast<size_t>(k)];
    }
  for (int k = 0; k < ns; ++k) {
    const int p = tree.parent[static_cast<size_t>(k)];
    if (p < 0) {
      tree.roots.push_back(k);
      tree.total += tree.subtree[static_cast<size_t>(k)];
    } else {
      if (tree.first(k) < tree.first(p)) return false;
      tree.children[static_cast<size_t>(p)].push_back(k);
    }
  }
  return true;
}

/// The split of the tree: a top part and the subtrees below it, and its longest path.
struct TreeSplit {
  std::vector<int> open, top;
  double path = 0;
};

/// Open the heaviest subtree (its root joins the top part, its children become subtrees) until
/// the longest path, top + the heavier group of a largest-first deal, stops improving.
TreeSplit plan_split(const EliminationTree& tree) {
  constexpr int kGroups = SupernodalSweeps::kGroups;
  const std::vector<double>& subtree = tree.subtree;
  std::vector<int> open = tree.roots, top, best_open, best_top;
  double top_work = 0, best = tree.total;
  auto by_weight = [&](int a, int b) {
    return subtree[static_cast<size_t>(a)] > subtree[static_cast<size_t>(b)] ||
           (subtree[static_cast<size_t>(a)] == subtree[static_cast<size_t>(b)] && a < b);
  };
  for (int expansion = 0; expansion <= kMaxExpansions && !open.empty() && top_work < best; ++expansion) {
    std::sort(open.begin(), open.end(), by_weight);
    double load[kGroups] = {0, 0};
    for (int k : open) *std::min_element(load, load + kGroups) += subtree[static_cast<size_t>(k)];
    const double path = top_work + *std::max_element(load, load + kGroups);
    if (path < best) best = path, best_open = open, best_top = top;
    const int heaviest = open.front();
    open.erase(open.begin());
    top.push_back(heaviest);
    top_work += tree.work[static_cast<size_t>(heaviest)];
    for (int c : tree.children[static_cast<size_t>(heaviest)]) open.push_back(c);
  }
  return TreeSplit{std::move(best_open), std::move(best_top), best};
}

}  // namespace

SupernodalSweeps::SupernodalSweeps(const SupernodalLayout& layout) : L_(layout) {
  if (L_.nsuper <= 1 || L_.n <= 0) return;
  EliminationTree tree(L_.nsuper);
  if (!find_parents(L_, tree, max_below_) || !link_subtrees(tree)) return;
  if (tree.total < kMinEntries) return;
  TreeSplit split = plan_split(tree);
  critical_fraction_ = split.path / tree.total;
  worthwhile_ = critical_fraction_ <= kMaxCriticalFraction;
  if (!worthwhile_) return;

  // The same largest-first deal, kept: each group's subtrees in ascending order.
  double load[kGroups] = {0, 0};
  for (int k : split.open) {
    const int g = static_cast<int>(std::min_element(load, load + kGroups) - load);
    load[g] += tree.subtree[static_cast<size_t>(k)];
    groups_[g].push_back(Range{tree.first(k), k});
  }
  for (auto& group : groups_) std::sort(group.begin(), group.end(), [](Range a, Range b) { return a.first < b.first; });
  top_ = std::move(split.top);
  std::sort(top_.begin(), top_.end());
  slot_.assign(static_cast<size_t>(L_.n), -1);
  for (int k : top_)
    for (int c = L_.super[k]; c < L_.super[k + 1]; ++c) slot_[static_cast<size_t>(c)] = top_rows_++;
}

// Forward, supernode k with columns k1 .. k1 + nscol - 1 (its diagonal block D, the block below
// it A, the rows below r_i):  X_k <- D^-1 X_k,  then  X(r_i) -= (A X_k)_i,  where group 1 collects
// its updates of top rows in `buffer` (top rows x nrhs) instead.
template <class T>
void SupernodalSweeps::forward_supernode(const T* Lx, T* X, int nrhs, int k, T* E, T* buffer) const {
  constexpr T kOne = 1, kZero = 0;
  const int k1 = L_.super[k], nscol = L_.super[k + 1] - k1, psi = L_.pi[k], nsrow = L_.pi[k + 1] - psi;
  const int below = nsrow - nscol;
  const T* D = Lx + L_.px[k];
  const ConstBlock<T> L(D, nsrow, nscol, Eigen::OuterStride<>(nsrow));
  Block<T> Xk(X + k1, nscol, nrhs, Eigen::OuterStride<>(L_.n));
  if (blas<T>().available()) {
    const Blas<T>& b = blas<T>();
    if (nrhs == 1) {
      b.trsv("L", "N", "N", &nscol, D, &nsrow, X + k1, &kIncrement);
      if (below == 0) return;
      b.gemv("N", &below, &nscol, &kOne, D + nscol, &nsrow, X + k1, &kIncrement, &kZero, E, &kIncrement);
    } else {
      b.trsm("L", "L", "N", "N", &nscol, &nrhs, &kOne, D, &nsrow, X + k1, &L_.n);
      if (below == 0) return;
      b.gemm("N", "N", &below, &nrhs, &nscol, &kOne, D + nscol, &nsrow, X + k1, &L_.n, &kZero, E, &below);
    }
  } else if (nrhs == 1) {
    Eigen::Map<Vector<T>> x(X + k1, nscol);
    L.topRows(nscol).template triangularView<Eigen::Lower>().solveInPlace(x);
    if (below == 0) return;
    Eigen::Map<Vector<T>>(E, below).noalias() = L.bottomRows(below) * x;
  } else {
    L.topRows(nscol).template triangularView<Eigen::Lower>().solveInPlace(Xk);
    if (below == 0) return;
    Eigen::Map<Matrix<T>>(E, below, nrhs).noalias() = L.bottomRows(below) * Xk;
  }
  const int* rows = L_.s + psi + nscol;
  for (int j = 0; j < nrhs; ++j) {
    T* x = X + static_cast<size_t>(j) * L_.n;
    const T* e = E + static_cast<size_t>(j) * below;
    if (buffer) {
      T* b = buffer + static_cast<size_t>(j) * top_rows_;
      for (int i = 0; i < below; ++i) {
        const int slot = slot_[static_cast<size_t>(rows[i])];
        if (slot >= 0)
          b[slot] += e[i];
        else
          x[rows[i]] -= e[i];
      }
    } else {
      for (int i = 0; i < below; ++i) x[rows[i]] -= e[i];
    }
  }
}

// Backward, supernode k:  X_k <- D^-T (X_k - A^T X(r)),  the rows below final by then.
template <class T>
void SupernodalSweeps::backward_supernode(const T* Lx, T* X, int nrhs, int k, T* E) const {
  constexpr T kOne = 1, kMinusOne = -1;
  const int k1 = L_.super[k], nscol = L_.super[k + 1] - k1, psi = L_.pi[k], nsrow = L_.pi[k + 1] - psi;
  const int below = nsrow - nscol;
  const T* D = Lx + L_.px[k];
  const ConstBlock<T> L(D, nsrow, nscol, Eigen::OuterStride<>(nsrow));
  const int* rows = L_.s + psi + nscol;
  for (int j = 0; j < nrhs; ++j) {
    const T* x = X + static_cast<size_t>(j) * L_.n;
    T* e = E + static_cast<size_t>(j) * below;
    for (int i = 0; i < below; ++i) e[i] = x[rows[i]];
  }
  if (blas<T>().available()) {
    const Blas<T>& b = blas<T>();
    if (nrhs == 1) {
      if (below > 0)
        b.gemv("T", &below, &nscol, &kMinusOne, D + nscol, &nsrow, E, &kIncrement, &kOne, X + k1, &kIncrement);
      b.trsv("L", "T", "N", &nscol, D, &nsrow, X + k1, &kIncrement);
    } else {
      if (below > 0)
        b.gemm("T", "N", &nscol, &nrhs, &below, &kMinusOne, D + nscol, &nsrow, E, &below, &kOne, X + k1, &L_.n);
      b.trsm("L", "L", "T", "N", &nscol, &nrhs, &kOne, D, &nsrow, X + k1, &L_.n);
    }
  } else if (nrhs == 1) {
    Eigen::Map<Vector<T>> x(X + k1, nscol);
    if (below > 0) x.noalias() -= L.bottomRows(below).transpose() * Eigen::Map<const Vector<T>>(E, below);
    L.topRows(nscol).template triangularView<Eigen::Lower>().transpose().solveInPlace(x);
  } else {
    Block<T> Xk(X + k1, nscol, nrhs, Eigen::OuterStride<>(L_.n));
    if (below > 0) Xk.noalias() -= L.bottomRows(below).transpose() * Eigen::Map<const Matrix<T>>(E, below, nrhs);
    L.topRows(nscol).template triangularView<Eigen::Lower>().transpose().solveInPlace(Xk);
  }
}

template <class T>
void SupernodalSweeps::forward(const T* Lx, T* X, int nrhs, int threads) const {
  Workspace<T>& w = workspace<T>();
  for (auto& part : w.work) part.resize(static_cast<size_t>(max_below_) * static_cast<size_t>(nrhs));
  w.buffer.assign(static_cast<size_t>(top_rows_) * static_cast<size_t>(nrhs), T(0));
  exec::parallel(std::min(threads, kGroups), [&](int t, int p) {
    for (int g = t; g < kGroups; g += p)
      for (const Range& r : groups_[g])
        for (int k = r.first; k <= r.last; ++k)
          forward_supernode(Lx, X, nrhs, k, w.work[g].data(), g == 0 ? nullptr : w.buffer.data());
  });
  for (int j = 0; j < nrhs; ++j) {
    T* x = X + static_cast<size_t>(j) * L_.n;
    const T* b = w.buffer.data() + static_cast<size_t>(j) * top_rows_;
    for (int k : top_)
      for (int c = L_.super[k]; c < L_.super[k + 1]; ++c) x[c] -= b[slot_[static_cast<size_t>(c)]];
  }
  for (int k : top_) forward_supernode(Lx, X, nrhs, k, w.work[0].data(), static_cast<T*>(nullptr));
}

template <class T>
void SupernodalSweeps::backward(const T* Lx, T* X, int nrhs, int threads) const {
  Workspace<T>& w = workspace<T>();
  for (auto& part : w.work) part.resize(static_cast<size_t>(max_below_) * static_cast<size_t>(nrhs));
  for (auto k = top_.rbegin(); k != top_.rend(); ++k) backward_supernode(Lx, X, nrhs, *k, w.work[0].data());
  exec::parallel(std::min(threads, kGroups), [&](int t, int p) {
    for (int g = t; g < kGroups; g += p)
      for (const Range& r : groups_[g])
        for (int k = r.last; k >= r.first; --k) backward_supernode(Lx, X, nrhs, k, w.work[g].data());
  });
}

template void SupernodalSweeps::forward<double>(const double*, double*, int, int) const;
template void SupernodalSweeps::forward<float>(const float*, float*, int, int) const;
template void SupernodalSweeps::backward<double>(const double*, double*, int, int) const;
template void SupernodalSweeps::backward<float>(const float*, float*, int, int) const;

}  // namespace softik::detail
