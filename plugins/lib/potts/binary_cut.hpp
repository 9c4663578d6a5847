// Binary energy minimization by min-cut / max-flow with Boost Graph's Boykov-Kolmogorov
// algorithm (Boykov & Kolmogorov, PAMI 2004). Shared by the graph_cut and potts_expansion
// oracles (header-only, inside the plugins: not a public dualgap header).
//
//   minimize  E(x) = sum_u cost1[u] x_u + cost0[u] (1 - x_u)
//                  + sum_e  w10[e] x_a (1 - x_b) + w01[e] (1 - x_a) x_b,   x in {0,1}^U
//
// with w10, w01 >= 0 (submodular). x_u = 1 means u ends in the source set. The graph (U + 2
// vertices; one edge pair per terminal link and one per graph edge, the two directions of a
// graph edge being each other's reverse) is built once; solve() only rewrites capacities.
#pragma once

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/boykov_kolmogorov_max_flow.hpp>
#include <utility>
#include <vector>

namespace dualgap_structured {

class BinaryCut {
 public:
  using Traits = boost::adjacency_list_traits<boost::vecS, boost::vecS, boost::directedS>;
  using Graph = boost::adjacency_list<
      boost::vecS, boost::vecS, boost::directedS,
      boost::property<boost::vertex_color_t, boost::default_color_type,
                      boost::property<boost::vertex_distance_t, long,
                                      boost::property<boost::vertex_predecessor_t,
                                                      Traits::edge_descriptor>>>,
      boost::property<boost::edge_capacity_t, double,
                      boost::property<boost::edge_residual_capacity_t, double,
                                      boost::property<boost::edge_reverse_t,
                                                      Traits::edge_descriptor>>>>;
  using Edge = Traits::edge_descriptor;

  BinaryCut(int num_nodes, const std::pair<int, int>* edges, std::size_t num_edges)
      : g_(static_cast<std::size_t>(num_nodes) + 2), n_(num_nodes), edges_(edges, edges + num_edges) {
    const int s = n_, t = n_ + 1;
    src_.reserve(static_cast<std::size_t>(n_));
    snk_.reserve(static_cast<std::size_t>(n_));
    for (int u = 0; u < n_; ++u) {
      src_.push_back(add_pair(s, u));
      snk_.push_back(add_pair(u, t));
    }
    ab_.reserve(num_edges);
    for (std::size_t e = 0; e < num_edges; ++e) ab_.push_back(add_pair(edges[e].first, edges[e].second));
  }

  int num_nodes() const { return n_; }
  std::size_t num_edges() const { return ab_.size(); }
  /// Whether this graph was built for exactly these nodes and edges (O(m) check per call:
  /// guards against a cached graph meeting other data at a reused address).
  bool matches(int num_nodes, const std::pair<int, int>* edges, std::size_t num_edges) const {
    return num_nodes == n_ && num_edges == edges_.size() &&
           std::equal(edges_.begin(), edges_.end(), edges);
  }

  /// Minimizes E; writes x (size U). Returns the min-cut value (E minus the constant shifts).
  double solve(const double* cost0, const double* cost1, const double* w10, const double* w01,
               int* x) {
    auto cap = get(boost::edge_capacity, g_);
    for (int u = 0; u < n_; ++u) {
      // Cut s->u when x_u = 0 (u on the sink side), u->t when x_u = 1.
      const double d = cost0[u] - cost1[u];
      set_pair(cap, src_[static_cast<std::size_t>(u)], std::max(d, 0.0), 0.0);
      set_pair(cap, snk_[static_cast<std::size_t>(u)], std::max(-d, 0.0), 0.0);
    }
    // a->b is cut when a in S (x_a = 1) and b in T (x_b = 0): w10; b->a when x_a=0, x_b=1: w01.
    for (std::size_t e = 0; e < ab_.size(); ++e) set_pair(cap, ab_[e], w10[e], w01[e]);
    const double flow = boost::boykov_kolmogorov_max_flow(g_, n_, n_ + 1);
    auto color = get(boost::vertex_color, g_);
    // Black: in the source search tree (reachable from s in the residual graph), i.e. source set.
    for (int u = 0; u < n_; ++u)
      x[u] = get(color, static_cast<std::size_t>(u)) == boost::black_color ? 1 : 0;
    return flow;
  }

 private:
  std::pair<Edge, Edge> add_pair(int a, int b) {
    Edge e = boost::add_edge(static_cast<std::size_t>(a), static_cast<std::size_t>(b), g_).first;
    Edge r = boost::add_edge(static_cast<std::size_t>(b), static_cast<std::size_t>(a), g_).first;
    auto rev = get(boost::edge_reverse, g_);
    rev[e] = r;
    rev[r] = e;
    return {e, r};
  }
  template <class Cap>
  static void set_pair(Cap& cap, const std::pair<Edge, Edge>& p, double forward, double backward) {
    cap[p.first] = forward;
    cap[p.second] = backward;
  }

  Graph g_;
  int n_;
  std::vector<std::pair<int, int>> edges_;
  std::vector<std::pair<Edge, Edge>> src_, snk_, ab_;
};

}  // namespace dualgap_structured
