// A closed enum's names, both ways: the one way this project writes an enum as text and reads
// it back. A table is a constexpr row of values and their names, in the same order. Pure.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace pi_fusion {

template <typename Enum, size_t N>
struct NameTable {
  Enum values[N];
  std::string_view names[N];

  // "unknown" for a value outside the table (a cast from a number; never a listed value).
  constexpr std::string_view Name(Enum value) const {
    for (size_t i = 0; i < N; ++i) {
      if (values[i] == value) return names[i];
    }
    return "unknown";
  }
  constexpr std::optional<Enum> Parse(std::string_view name) const {
    for (size_t i = 0; i < N; ++i) {
      if (names[i] == name) return values[i];
    }
    return std::nullopt;
  }
};

}  // namespace pi_fusion
