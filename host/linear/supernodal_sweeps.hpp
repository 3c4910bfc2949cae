// Triangular sweeps with a supernodal Cholesky factor on two threads.
//
// A solve with P K P^T = L L^T is two sweeps over L: forward L z = b (supernodes in ascending
// order, each solving its diagonal block and pushing its update to the rows below) and backward
// L^T x = z (descending, each pulling from the rows below). CHOLMOD runs them on one thread; in
// the 4.89k-tet real-time inverse step that keeps its factorisation they are ~40 % of the time.
// Supernodes whose subtrees of the supernodal elimination tree are disjoint touch disjoint rows,
// except the rows of their common ancestors, so the tree is cut into a top part and whole
// subtrees, and the subtrees are dealt to two groups of about equal work:
//   forward:  the groups side by side (group 0 updates the top rows in place, group 1 into a
//             buffer added after), then the top part in order;
//   backward: the top part first, then the groups side by side (each reads only its own rows
//             and the top rows, which are final by then).
// The groups are fixed (two) whatever the number of threads, and run one after the other on one
// thread, so the numbers are the same for any thread count. A supernode's dense work (its diagonal
// block's triangular solve, the rectangular block below by a matrix product) is done with the BLAS
// kernels CHOLMOD itself calls, or with Eigen where the process has no BLAS.
//
// The layout is CHOLMOD's supernodal one (cholmod_factor with is_super, is_ll), with CHOLMOD's
// postordered tree (every subtree a contiguous range of supernodes):
//   supernode k holds the columns super[k] .. super[k+1]-1 of L; its rows are s[pi[k] ..
//   pi[k+1]) (the first ones its own columns, then the rows below, all in ancestors of k); its
//   values x[px[k] ..] are the dense (pi[k+1]-pi[k]) x (super[k+1]-super[k]) block, column-major.
#pragma once

#include <type_traits>
#include <vector>

namespace softik::detail {

struct SupernodalLayout {
  int n = 0;       ///< columns (and rows) of L
  int nsuper = 0;  ///< supernodes
  const int* super = nullptr;
  const int* pi = nullptr;
  const int* px = nullptr;
  const int* s = nullptr;
};

class SupernodalSweeps {
 public:
  static constexpr int kGroups = 2;
  /// Sweeps below this many entries of L stay on CHOLMOD's single thread: starting the second
  /// part costs a few microseconds.
  static constexpr double kMinEntries = 4e4;
  /// A split pays when the longest path (top part + the larger group) reads at most this
  /// fraction of L.
  static constexpr double kMaxCriticalFraction = 0.8;

  /// Plans the split of the layout's tree (once per symbolic analysis); the arrays must outlive
  /// this object. A layout whose tree is not postordered gets no split (worthwhile() false).
  explicit SupernodalSweeps(const SupernodalLayout& layout);

  /// Whether the split pays (enough entries, a short enough longest path).
  bool worthwhile() const { return worthwhile_; }
  /// The longest path's share of L's entries (1: no split).
  double critical_fraction() const { return critical_fraction_; }

  /// X <- L^-1 X for nrhs columns (X: n x nrhs, column-major, leading dimension n); Lx: the
  /// factor's values in the layout. The groups run on up to `threads` of softik's pool; the
  /// result does not depend on it. Only with worthwhile(). T: double, or float for a copy of
  /// the factor in single precision (half the memory traffic: a preconditioner's sweeps).
  template <class T>
  void forward(const T* Lx, T* X, int nrhs, int threads = kGroups) const;
  /// X <- L^-T X (as forward).
  template <class T>
  void backward(const T* Lx, T* X, int nrhs, int threads = kGroups) const;

 private:
  struct Range {
    int first, last;  ///< a subtree: supernodes first .. last (its root)
  };
  template <class T>
  void forward_supernode(const T* Lx, T* X, int nrhs, int k, T* E, T* buffer) const;
  template <class T>
  void backward_supernode(const T* Lx, T* X, int nrhs, int k, T* E) const;
  /// Each group's rows below a supernode, and group 1's updates of the top rows.
  template <class T>
  struct Workspace {
    std::vector<T> work[kGroups], buffer;
  };
  template <class T>
  Workspace<T>& workspace() const {
    if constexpr (std::is_same_v<T, float>)
      return single_;
    else
      return double_;
  }

  SupernodalLayout L_;
  bool worthwhile_ = false;
  double critical_fraction_ = 1;
  std::vector<Range> groups_[kGroups];  ///< each group's subtrees, ascending
  std::vector<int> top_;                ///< the top part's supernodes, ascending
  std::vector<int> slot_;               ///< per row of L: its place among the top rows, or -1
  int top_rows_ = 0;
  int max_below_ = 0;  ///< the most rows below a supernode's own
  mutable Workspace<double> double_;
  mutable Workspace<float> single_;
};

}  // namespace softik::detail
