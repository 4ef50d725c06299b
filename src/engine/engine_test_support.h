// The fixture the engine tests that use control state share, run over every
// control backend (control_backends_testing.h: SQLite and PostgreSQL): a
// scratch directory (with a spool directory), a control store
// of the backend under test on a manual wall clock, and a request governor
// whose retries wait 1 ms on a manual clock. A suite deriving from it
// instantiates itself with VIGILO_OVER_CONTROL_BACKENDS(Suite).
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "common/scratch_test_support.h"
#include "control_backends_testing.h"
#include "vigilo/control/control_store.h"
#include "vigilo/engine/write_target.h"
#include "vigilo/store/governor.h"

namespace vigilo::engine::testing {

inline constexpr store::Micros kSecond = 1'000'000;
// 2026-01-01T00:00:00Z: the wall time every test starts at.
inline constexpr store::Micros kT0 = store::Micros{1'767'225'600} * kSecond;

class EngineFixture : public ::testing::TestWithParam<control::testing_support::ControlBackend> {
 protected:
  void SetUp() override {
    scratch_ = std::filesystem::temp_directory_path() /
               ("vigilo-engine-test-" + std::to_string(::getpid()) + "-" + test_support::CurrentTestPathName());
    std::filesystem::remove_all(scratch_);
    std::filesystem::create_directories(scratch_ / "spool");
    OpenControl("control");
    store::GovernorLimits limits;
    limits.retry_backoff_base_ms = std::chrono::milliseconds(1);
    limits.retry_backoff_cap_ms = std::chrono::milliseconds(1);
    auto governor = store::RequestGovernor::Create(limits, steady_, random_);
    ASSERT_TRUE(governor.ok()) << governor.status().ToString();
    governor_ = std::move(governor).value();
  }
  void TearDown() override { std::filesystem::remove_all(scratch_); }

  // A fresh control store of the backend under test, made under
  // scratch/`label` (each label its own store).
  void OpenControl(const std::string& label) {
    const std::string location = GetParam().create(scratch_ / label);
    auto opened = GetParam().open(location, wall_, random_);
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    control_ = std::move(opened).value();
  }

  std::string WriteInput(const std::string& name, const std::string& text) {
    std::string path = (scratch_ / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }

  // Writes to `store`, recorded in the ledger as "test-store".
  WriteTarget Target(store::ObjectStore& store, const std::string& alias = "local") {
    WriteTarget t;
    t.control = control_.get();
    t.store = &store;
    t.governor = governor_.get();
    t.alias = alias;
    t.ledger_store_id = "test-store";
    t.wall_clock = &wall_;
    t.random = &random_;
    return t;
  }

  std::filesystem::path scratch_;
  store::ManualClock wall_{kT0};
  store::ManualClock steady_{0};
  store::SeededRandom random_{7};
  std::unique_ptr<control::ControlStore> control_;
  std::unique_ptr<store::RequestGovernor> governor_;
};

}  // namespace vigilo::engine::testing

#define VIGILO_OVER_CONTROL_BACKENDS(Suite)                                                                        \
  INSTANTIATE_TEST_SUITE_P(ControlBackends, Suite,                                                                \
                           ::testing::ValuesIn(::vigilo::control::testing_support::ControlBackends()),            \
                           ::vigilo::control::testing_support::BackendName)
