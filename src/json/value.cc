#include "vigilo/json/value.h"

#include <algorithm>
#include <cassert>
#include <cstring>

namespace vigilo::json {

Result<int64_t> Number::AsInt64() const {
  switch (kind_) {
    case Kind::kI64: return i64_;
    case Kind::kU64:
      if (u64_ > static_cast<uint64_t>(INT64_MAX)) return OutOfRange("integer does not fit int64");
      return static_cast<int64_t>(u64_);
    case Kind::kF64: break;
  }
  return InvalidFormat("expected an integer, got a float");
}

Result<uint64_t> Number::AsUint64() const {
  switch (kind_) {
    case Kind::kU64: return u64_;
    case Kind::kI64: return OutOfRange("expected a non-negative integer");
    case Kind::kF64: break;
  }
  return InvalidFormat("expected an integer, got a float");
}

double Number::AsDouble() const {
  switch (kind_) {
    case Kind::kU64: return static_cast<double>(u64_);
    case Kind::kI64: return static_cast<double>(i64_);
    case Kind::kF64: break;
  }
  return f64_;
}

bool operator==(const Number& a, const Number& b) {
  if (a.kind_ != b.kind_) return false;
  switch (a.kind_) {
    case Number::Kind::kU64: return a.u64_ == b.u64_;
    case Number::Kind::kI64: return a.i64_ == b.i64_;
    case Number::Kind::kF64: break;
  }
  // Bitwise, so that -0.0 != 0.0 (they serialize differently).
  return std::memcmp(&a.f64_, &b.f64_, sizeof(double)) == 0;
}

namespace {
struct KeyLess {
  bool operator()(const Object::Member& m, std::string_view key) const { return m.first < key; }
};
}  // namespace

const Value* Object::Find(std::string_view key) const {
  auto it = std::lower_bound(members_.begin(), members_.end(), key, KeyLess{});
  return it != members_.end() && it->first == key ? &it->second : nullptr;
}

Value* Object::Find(std::string_view key) {
  auto it = std::lower_bound(members_.begin(), members_.end(), key, KeyLess{});
  return it != members_.end() && it->first == key ? &it->second : nullptr;
}

Status Object::Insert(std::string key, Value value) {
  auto it = std::lower_bound(members_.begin(), members_.end(), key, KeyLess{});
  if (it != members_.end() && it->first == key) return InvalidFormat("duplicate key \"" + key + "\"");
  members_.emplace(it, std::move(key), std::move(value));
  return Status::Ok();
}

void Object::Set(std::string key, Value value) {
  auto it = std::lower_bound(members_.begin(), members_.end(), key, KeyLess{});
  if (it != members_.end() && it->first == key) {
    it->second = std::move(value);
  } else {
    members_.emplace(it, std::move(key), std::move(value));
  }
}

bool Object::Erase(std::string_view key) {
  auto it = std::lower_bound(members_.begin(), members_.end(), key, KeyLess{});
  if (it == members_.end() || it->first != key) return false;
  members_.erase(it);
  return true;
}

Object Object::FromSortedUnique(std::vector<Member> members) {
  assert(std::adjacent_find(members.begin(), members.end(), [](const Member& a, const Member& b) {
           return a.first >= b.first;
         }) == members.end());
  Object o;
  o.members_ = std::move(members);
  return o;
}

bool operator==(const Object& a, const Object& b) { return a.members_ == b.members_; }

std::string_view KindName(Kind kind) {
  switch (kind) {
    case Kind::kNull: return "null";
    case Kind::kBool: return "boolean";
    case Kind::kNumber: return "number";
    case Kind::kString: return "string";
    case Kind::kArray: return "array";
    case Kind::kObject: return "object";
  }
  return "unknown";
}

}  // namespace vigilo::json
