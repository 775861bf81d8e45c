// A small C++ pytree: nested std::vector, std::array, std::tuple, std::pair and string-keyed
// std::map of Arrays flatten to a list of leaves and rebuild from one, so transforms can take
// and return structured parameters.
#pragma once

#include <array>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "strata/array.h"

namespace strata {

/// Tree<T> knows how to flatten a T into arrays and rebuild a T of the same structure.
template <class T, class = void> struct Tree {
  static_assert(sizeof(T) == 0, "strata: this type is not a pytree of Arrays (use Array, "
                                "std::vector, std::array, std::tuple, std::pair or "
                                "std::map<std::string, T>)");
};

template <> struct Tree<Array> {
  static void flatten(const Array &x, std::vector<Array> &out) { out.push_back(x); }
  static Array unflatten(const Array &, const Array *&it) { return *it++; }
};

template <class T> struct Tree<std::vector<T>> {
  static void flatten(const std::vector<T> &v, std::vector<Array> &out) {
    for (const T &x : v)
      Tree<T>::flatten(x, out);
  }
  static std::vector<T> unflatten(const std::vector<T> &like, const Array *&it) {
    std::vector<T> v;
    v.reserve(like.size());
    for (const T &x : like)
      v.push_back(Tree<T>::unflatten(x, it));
    return v;
  }
};

template <class T, size_t N> struct Tree<std::array<T, N>> {
  static void flatten(const std::array<T, N> &v, std::vector<Array> &out) {
    for (const T &x : v)
      Tree<T>::flatten(x, out);
  }
  static std::array<T, N> unflatten(const std::array<T, N> &like, const Array *&it) {
    std::array<T, N> v;
    for (size_t i = 0; i < N; ++i)
      v[i] = Tree<T>::unflatten(like[i], it);
    return v;
  }
};

template <class T> struct Tree<std::map<std::string, T>> {
  static void flatten(const std::map<std::string, T> &m, std::vector<Array> &out) {
    for (const auto &[k, x] : m) // keys in sorted order, as JAX orders dict keys
      Tree<T>::flatten(x, out);
  }
  static std::map<std::string, T> unflatten(const std::map<std::string, T> &like,
                                            const Array *&it) {
    std::map<std::string, T> m;
    for (const auto &[k, x] : like)
      m.emplace(k, Tree<T>::unflatten(x, it));
    return m;
  }
};

template <class... Ts> struct Tree<std::tuple<Ts...>> {
  static void flatten(const std::tuple<Ts...> &t, std::vector<Array> &out) {
    std::apply([&](const auto &...x) { (Tree<std::decay_t<decltype(x)>>::flatten(x, out), ...); },
               t);
  }
  static std::tuple<Ts...> unflatten(const std::tuple<Ts...> &like, const Array *&it) {
    return unflatten_impl(like, it, std::index_sequence_for<Ts...>{});
  }
  template <size_t... I>
  static std::tuple<Ts...> unflatten_impl(const std::tuple<Ts...> &like, const Array *&it,
                                          std::index_sequence<I...>) {
    // Braced initialization evaluates left to right, keeping the leaf order.
    return std::tuple<Ts...>{Tree<Ts>::unflatten(std::get<I>(like), it)...};
  }
};

template <class A, class B> struct Tree<std::pair<A, B>> {
  static void flatten(const std::pair<A, B> &p, std::vector<Array> &out) {
    Tree<A>::flatten(p.first, out);
    Tree<B>::flatten(p.second, out);
  }
  static std::pair<A, B> unflatten(const std::pair<A, B> &like, const Array *&it) {
    A a = Tree<A>::unflatten(like.first, it);
    B b = Tree<B>::unflatten(like.second, it);
    return {std::move(a), std::move(b)};
  }
};

/// The leaves of a pytree in order.
template <class T> std::vector<Array> tree_leaves(const T &x) {
  std::vector<Array> out;
  Tree<T>::flatten(x, out);
  return out;
}
/// A pytree shaped like `like` holding `leaves` (which must number as like's leaves).
template <class T> T tree_unflatten(const T &like, const std::vector<Array> &leaves) {
  const Array *it = leaves.data();
  T out = Tree<T>::unflatten(like, it);
  if (it != leaves.data() + leaves.size())
    throw Error("[tree_unflatten] leaf count does not match the structure");
  return out;
}
/// Applies f to every leaf.
template <class T, class F> T tree_map(F &&f, const T &x) {
  std::vector<Array> leaves = tree_leaves(x);
  for (Array &l : leaves)
    l = f(l);
  return tree_unflatten(x, leaves);
}

} // namespace strata
