// A JSON value with serde_json's number model.
//
// Numbers keep the kind serde_json gives them: a non-negative integer that
// fits u64 is U64, a negative integer that fits i64 is I64, anything else
// (fraction, exponent, -0, or an integer too large) is F64. The canonical
// writer depends on that kind: 1 writes "1", 1.0 writes "1.0".
//
// Objects keep their members sorted by key bytes with unique keys, which is
// both the canonical output order and what makes lookup a binary search.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "vigilo/common/result.h"

namespace vigilo::json {

class Value;

class Number {
 public:
  enum class Kind : uint8_t { kU64, kI64, kF64 };

  Number() = default;
  static Number U64(uint64_t v) {
    Number n;
    n.u64_ = v;
    return n;
  }
  // Negative values only; a non-negative integer is always U64 (serde_json).
  static Number I64(int64_t v) {
    if (v >= 0) return U64(static_cast<uint64_t>(v));
    Number n;
    n.kind_ = Kind::kI64;
    n.i64_ = v;
    return n;
  }
  // Must be finite; the writer cannot represent NaN or infinity.
  static Number F64(double v) {
    Number n;
    n.kind_ = Kind::kF64;
    n.f64_ = v;
    return n;
  }

  Kind kind() const { return kind_; }
  bool is_integer() const { return kind_ != Kind::kF64; }
  // Each accessor returns 0 unless kind() matches.
  uint64_t u64() const { return kind_ == Kind::kU64 ? u64_ : 0; }
  int64_t i64() const { return kind_ == Kind::kI64 ? i64_ : 0; }
  double f64() const { return kind_ == Kind::kF64 ? f64_ : 0.0; }

  // The value as int64 if it is an integer that fits; otherwise nullopt-like failure.
  Result<int64_t> AsInt64() const;
  Result<uint64_t> AsUint64() const;
  // Any kind, converted to double (integers may round).
  double AsDouble() const;

  friend bool operator==(const Number& a, const Number& b);

 private:
  Kind kind_ = Kind::kU64;
  union {  // 16 bytes per number instead of 32: documents hold many
    uint64_t u64_ = 0;
    int64_t i64_;
    double f64_;
  };
};

using Array = std::vector<Value>;

class Object {
 public:
  using Member = std::pair<std::string, Value>;

  Object() = default;

  // Defined below Value: Member is incomplete until then.
  size_t size() const;
  bool empty() const;
  std::vector<Member>::const_iterator begin() const;
  std::vector<Member>::const_iterator end() const;

  // nullptr if absent.
  const Value* Find(std::string_view key) const;
  Value* Find(std::string_view key);
  bool Contains(std::string_view key) const;

  // Inserts a new member; InvalidFormat if the key is already present.
  Status Insert(std::string key, Value value);
  // Inserts or replaces.
  void Set(std::string key, Value value);
  // Removes a member if present; returns whether it was.
  bool Erase(std::string_view key);

  // Builds from members already sorted by key with no duplicates (the parser
  // sorts and checks); anything else is a bug and asserts in debug builds.
  static Object FromSortedUnique(std::vector<Member> members);

  friend bool operator==(const Object& a, const Object& b);

 private:
  std::vector<Member> members_;
};

enum class Kind : uint8_t { kNull, kBool, kNumber, kString, kArray, kObject };

class Value {
 public:
  Value() = default;  // null
  Value(std::nullptr_t) {}  // NOLINT
  Value(bool b) : v_(b) {}  // NOLINT
  Value(Number n) : v_(n) {}  // NOLINT
  Value(std::string s) : v_(std::move(s)) {}  // NOLINT
  Value(std::string_view s) : v_(std::string(s)) {}  // NOLINT
  Value(const char* s) : v_(std::string(s)) {}  // NOLINT
  Value(Array a) : v_(std::move(a)) {}  // NOLINT
  Value(Object o) : v_(std::move(o)) {}  // NOLINT
  // Integers are the common case in formats; these pick the serde kind.
  static Value Int(int64_t v) { return Value(Number::I64(v)); }
  static Value Uint(uint64_t v) { return Value(Number::U64(v)); }
  static Value Double(double v) { return Value(Number::F64(v)); }

  Kind kind() const { return static_cast<Kind>(v_.index()); }
  bool is_null() const { return kind() == Kind::kNull; }
  bool is_bool() const { return kind() == Kind::kBool; }
  bool is_number() const { return kind() == Kind::kNumber; }
  bool is_string() const { return kind() == Kind::kString; }
  bool is_array() const { return kind() == Kind::kArray; }
  bool is_object() const { return kind() == Kind::kObject; }

  // Accessors; calling the wrong one is a bug (std::get throws bad_variant_access).
  bool as_bool() const { return std::get<bool>(v_); }
  const Number& as_number() const { return std::get<Number>(v_); }
  const std::string& as_string() const { return std::get<std::string>(v_); }
  const Array& as_array() const { return std::get<Array>(v_); }
  Array& as_array() { return std::get<Array>(v_); }
  const Object& as_object() const { return std::get<Object>(v_); }
  Object& as_object() { return std::get<Object>(v_); }

  friend bool operator==(const Value& a, const Value& b) { return a.v_ == b.v_; }

 private:
  std::variant<std::nullptr_t, bool, Number, std::string, Array, Object> v_;
};

inline size_t Object::size() const { return members_.size(); }
inline bool Object::empty() const { return members_.empty(); }
inline std::vector<Object::Member>::const_iterator Object::begin() const { return members_.begin(); }
inline std::vector<Object::Member>::const_iterator Object::end() const { return members_.end(); }
inline bool Object::Contains(std::string_view key) const { return Find(key) != nullptr; }

std::string_view KindName(Kind kind);

}  // namespace vigilo::json
