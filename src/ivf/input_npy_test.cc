// .npy: versions, dtypes, and every header or data problem.
#include <gtest/gtest.h>

#include <limits>

#include "input_test_support.h"
#include "vigilo/ivf/input.h"

namespace vigilo::ivf {
namespace {

using testing::InputTest;
using testing::NpyData;
using testing::NpyDict;
using testing::NpyFile;

class NpyTest : public InputTest {
 protected:
  Status OpenError(const std::string& bytes) { return testing::PassError(Write("x.npy", bytes), {}); }
};

void ExpectError(const Status& st, StatusCode code, std::string_view needle) {
  EXPECT_EQ(st.code(), code) << st.ToString();
  EXPECT_NE(st.message().find(needle), std::string_view::npos) << st.ToString();
}

TEST_F(NpyTest, VersionsAndDtypes) {
  auto m = testing::MakeMatrix(5, 3, /*bytes=*/true);
  for (int major : {1, 2, 3}) {
    for (const char* descr : {"<f4", "<f8", "|u1"}) {
      SCOPED_TRACE(std::to_string(major) + descr);
      auto input = OpenVectorInput(Write("v.npy", NpyFile(NpyDict(descr, 5, 3), NpyData(m, descr), major)), {});
      ASSERT_TRUE(input.ok()) << input.status().ToString();
      EXPECT_EQ((*input)->rows(), std::optional<uint64_t>(5));
      EXPECT_EQ((*input)->dimension(), 3u);
      EXPECT_EQ(*testing::ReadVectors(**input), m.values);
    }
  }
}

TEST_F(NpyTest, HeaderSpellingsNumPyUses) {
  // Key order, no trailing comma, double quotes, a 1-tuple-style trailing comma in the shape.
  auto m = testing::MakeMatrix(2, 2, false);
  std::string data = NpyData(m, "<f4");
  for (std::string dict : {"{'shape': (2, 2), 'fortran_order': False, 'descr': '<f4'}",
                           "{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (2,2,)}",
                           "{'descr':'<f4','fortran_order':False,'shape':(2,2)}"}) {
    auto input = OpenVectorInput(Write("h.npy", NpyFile(dict, data)), {});
    ASSERT_TRUE(input.ok()) << dict << ": " << input.status().ToString();
    EXPECT_EQ(*testing::ReadVectors(**input), m.values);
  }
}

TEST_F(NpyTest, RejectsFortranOrder) {
  auto m = testing::MakeMatrix(2, 2, false);
  ExpectError(OpenError(NpyFile(NpyDict("<f4", 2, 2, /*fortran=*/true), NpyData(m, "<f4"))),
              StatusCode::kInvalidFormat, "Fortran");
}

TEST_F(NpyTest, RejectsOtherDtypes) {
  for (const char* descr : {">f4", "<f2", "<i4", "<i8", "|b1", "<c8", "|O", "<U4"}) {
    ExpectError(OpenError(NpyFile(NpyDict(descr, 1, 4), std::string(64, '\0'))), StatusCode::kInvalidFormat,
                "is not a vector type");
  }
}

TEST_F(NpyTest, RejectsOtherShapes) {
  for (const char* shape : {"(4,)", "()", "(1, 2, 2)"}) {
    std::string dict = std::string("{'descr': '<f4', 'fortran_order': False, 'shape': ") + shape + ", }";
    ExpectError(OpenError(NpyFile(dict, std::string(16, '\0'))), StatusCode::kInvalidFormat, "2-D");
  }
  ExpectError(OpenError(NpyFile(NpyDict("<f4", 0, 4), "")), StatusCode::kInvalidFormat, "no vectors");
  ExpectError(OpenError(NpyFile(NpyDict("<f4", 1, 0), "")), StatusCode::kInvalidFormat, "dimension 0");
  ExpectError(OpenError(NpyFile(NpyDict("|u1", 1, 65537), std::string(65537, '\0'))), StatusCode::kInvalidFormat,
              "dimension 65537");
}

TEST_F(NpyTest, MalformedHeaders) {
  ExpectError(OpenError("not numpy at all"), StatusCode::kParseError, "magic");
  ExpectError(OpenError(std::string("\x93NUMPY\x04\x00\x10\x00", 10) + std::string(16, ' ')),
              StatusCode::kInvalidFormat, "version 4.0");
  // A header length past the end of the file.
  ExpectError(OpenError(std::string("\x93NUMPY\x01\x00\xff\x00{}", 12)), StatusCode::kParseError, "truncated");
  for (std::string dict : {"{'descr': '<f4', 'shape': (1, 1), }", "{'descr': '<f4', 'fortran_order': False, }",
                           "{'descr': '<f4', 'fortran_order': false, 'shape': (1, 1), }",
                           "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1, 1)}",
                           "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1), 'extra': 1}",
                           "{'descr': '<f4', 'fortran_order': False, 'shape': (1, -1)}",
                           "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1)} x",
                           "['descr', '<f4']", "{'descr: '<f4'"}) {
    SCOPED_TRACE(dict);
    Status st = OpenError(NpyFile(dict, std::string(4, '\0')));
    EXPECT_EQ(st.code(), StatusCode::kParseError) << st.ToString();
    EXPECT_TRUE(st.offset().has_value()) << st.ToString();
  }
}

TEST_F(NpyTest, TruncatedAndTrailingData) {
  auto m = testing::MakeMatrix(4, 3, false);
  std::string data = NpyData(m, "<f4");
  std::string file = NpyFile(NpyDict("<f4", 4, 3), data);
  uint64_t data_offset = file.size() - data.size();
  Status st = OpenError(file.substr(0, file.size() - 5));
  ExpectError(st, StatusCode::kInvalidFormat, "row 3: truncated");
  EXPECT_EQ(st.offset(), data_offset + 36);
  st = OpenError(file + "x");
  ExpectError(st, StatusCode::kInvalidFormat, "bytes after the 4 rows");
  EXPECT_EQ(st.offset(), data_offset + 48);
}

TEST_F(NpyTest, NonFiniteAndOutOfRangeValues) {
  auto m = testing::MakeMatrix(4, 3, false);
  m.values[2 * 3 + 1] = std::numeric_limits<float>::quiet_NaN();
  ExpectError(OpenError(NpyFile(NpyDict("<f4", 4, 3), NpyData(m, "<f4"))), StatusCode::kInvalidFormat,
              "row 2: element 1 is NaN");
  // A double beyond the float range is as bad as an infinity.
  std::string data = NpyData(testing::MakeMatrix(2, 2, false), "<f8");
  double huge = 1e300;
  std::memcpy(data.data() + 3 * 8, &huge, 8);
  ExpectError(OpenError(NpyFile(NpyDict("<f8", 2, 2), data)), StatusCode::kInvalidFormat,
              "row 1: element 1 is infinite (or outside the float range)");
}

}  // namespace
}  // namespace vigilo::ivf
