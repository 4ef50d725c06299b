// The fixture every control test shares, over each of ControlBackends()
// (control_backends_testing.h): connections from this process or a forked
// one to one store location.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <ostream>
#include <memory>
#include <string>
#include <vector>

#include "control_backends_testing.h"
#include "vigilo/control/control_store.h"
#include "vigilo/store/clock.h"

namespace vigilo::control::testing_support {

// 2026-01-01T00:00:00Z: the wall time every test starts at.
inline constexpr Micros kT0 = Micros{1'767'225'600} * 1'000'000;
inline constexpr Micros kSecond = 1'000'000;
inline constexpr Micros kLease = 30 * kSecond;

class ControlTest : public ::testing::TestWithParam<ControlBackend> {
 protected:
  void SetUp() override;
  void TearDown() override;

  // Another connection with its own clock (another writer process).
  std::unique_ptr<ControlStore> Connect(store::Clock& clock);
  // Drops the connection and opens a new one: a restarted process.
  void Reopen();

  // A spec for datasets/<name> with this fixture's store id and a 30 s lease.
  AttemptSpec Spec(const std::string& name, const std::string& owner = "writer-1") const;
  // BeginAttempt(Spec(name)), asserting success.
  Lease Begin(const std::string& name, const std::string& owner = "writer-1");
  Uuid Id(int n) const;  // 00000000-0000-4000-8000-<n as 12 hex digits>

  std::filesystem::path scratch_;
  std::string location_;
  std::string store_id_ = "test-store";
  store::ManualClock clock_{kT0};
  store::SeededRandom random_{17};
  std::unique_ptr<ControlStore> control_;
};

// A canonical root reference naming `key`: {"key":"<key>"}.
std::string RootValue(const std::string& key);

// Raw SQL on a SQLite control database, on a connection of its own (schema
// and trigger tests): "" on success, else SQLite's message.
std::string RawExec(const std::string& path, const std::string& sql);
// The first column of the first row of `sql` as text ("no row", "null").
std::string RawQuery(const std::string& path, const std::string& sql);

}  // namespace vigilo::control::testing_support
