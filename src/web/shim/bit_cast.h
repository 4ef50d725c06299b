// WebAssembly build only (docs/format/wasm.md), force-included into every
// read-core source: emscripten 3.1.6's libc++ (LLVM 14) has no std::bit_cast;
// clang's builtin is the same operation.
#pragma once

#include <bit>
#include <type_traits>

#if !defined(__cpp_lib_bit_cast)
namespace std {
template <class To, class From>
  requires(sizeof(To) == sizeof(From) && is_trivially_copyable_v<To> && is_trivially_copyable_v<From>)
constexpr To bit_cast(const From& from) noexcept {
  return __builtin_bit_cast(To, from);
}
}  // namespace std
#endif
