#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "harness/core/jcs.hpp"

using kgate::canonicalize;
using kgate::jcs_number;
using kgate::json;

static double from_hex(uint64_t bits) {
  double d;
  std::memcpy(&d, &bits, 8);
  return d;
}

// RFC 8785 Appendix B: IEEE 754 bit patterns and their required serializations.
TEST(Jcs, RfcNumberTable) {
  struct Case { uint64_t bits; const char* want; };
  const Case cases[] = {
      {0x0000000000000000ull, "0"},
      {0x8000000000000000ull, "0"},
      {0x0000000000000001ull, "5e-324"},
      {0x8000000000000001ull, "-5e-324"},
      {0x7fefffffffffffffull, "1.7976931348623157e+308"},
      {0xffefffffffffffffull, "-1.7976931348623157e+308"},
      {0x4340000000000000ull, "9007199254740992"},
      {0xc340000000000000ull, "-9007199254740992"},
      {0x4430000000000000ull, "295147905179352830000"},
      {0x44b52d02c7e14af5ull, "9.999999999999997e+22"},
      {0x44b52d02c7e14af6ull, "1e+23"},
      {0x44b52d02c7e14af7ull, "1.0000000000000001e+23"},
      {0x444b1ae4d6e2ef4eull, "999999999999999700000"},
      {0x444b1ae4d6e2ef4full, "999999999999999900000"},
      {0x444b1ae4d6e2ef50ull, "1e+21"},
      {0x3eb0c6f7a0b5ed8cull, "9.999999999999997e-7"},
      {0x3eb0c6f7a0b5ed8dull, "0.000001"},
      {0x41b3de4355555553ull, "333333333.3333332"},
      {0x41b3de4355555554ull, "333333333.33333325"},
      {0x41b3de4355555555ull, "333333333.3333333"},
      {0x41b3de4355555556ull, "333333333.3333334"},
      {0x41b3de4355555557ull, "333333333.33333343"},
      {0xbecbf647612f3696ull, "-0.0000033333333333333333"},
      {0x43143ff3c1cb0959ull, "1424953923781206.2"},
  };
  for (const auto& c : cases) EXPECT_EQ(jcs_number(from_hex(c.bits)), c.want) << std::hex << c.bits;
}

TEST(Jcs, NanAndInfinityAreErrors) {
  EXPECT_THROW(jcs_number(from_hex(0x7fffffffffffffffull)), std::invalid_argument);
  EXPECT_THROW(jcs_number(from_hex(0x7ff0000000000000ull)), std::invalid_argument);
  EXPECT_THROW(jcs_number(-INFINITY), std::invalid_argument);
}

// RFC 8785 section 3.2.2 sample: input and its canonical form.
TEST(Jcs, RfcSampleObject) {
  const char* in = R"({
    "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
    "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
    "literals": [null, true, false]
  })";
  const char* want =
      "{\"literals\":[null,true,false],\"numbers\":[333333333.3333333,1e+30,4.5,0.002,1e-27],"
      "\"string\":\"\xe2\x82\xac$\\u000f\\nA'B\\\"\\\\\\\\\\\"/\"}";
  EXPECT_EQ(canonicalize(json::parse(in)), want);
}

// RFC 8785 section 3.2.3: keys sorted by UTF-16 code units, not by UTF-8 bytes.
TEST(Jcs, RfcKeySorting) {
  const char* in = R"({"\u20ac": "Euro Sign", "\r": "Carriage Return", "\ufb33": "Hebrew Letter Dalet With Dagesh",
    "1": "One", "\ud83d\ude00": "Emoji: Grinning Face", "\u0080": "Control",
    "\u00f6": "Latin Small Letter O With Diaeresis"})";
  std::string c = canonicalize(json::parse(in));
  std::vector<std::string> order = {"Carriage Return", "One", "Control", "Latin Small", "Euro Sign", "Emoji", "Hebrew"};
  size_t pos = 0;
  for (const auto& o : order) {
    size_t p = c.find(o);
    ASSERT_NE(p, std::string::npos) << o;
    EXPECT_GT(p, pos) << o << " out of order in " << c;
    pos = p;
  }
  // UTF-8 byte order would put U+FB33 (EF AC B3) after U+1F600 (F0 9F 98 80); UTF-16 puts it after.
  EXPECT_TRUE(kgate::utf16_less("\xf0\x9f\x98\x80", "\xef\xac\xb3"));
}

TEST(Jcs, EscapingIsMinimal) {
  EXPECT_EQ(kgate::jcs_string("a\"b\\c\x01\x1f/\xc3\xa9\t"), "\"a\\\"b\\\\c\\u0001\\u001f/\xc3\xa9\\t\"");
  EXPECT_EQ(canonicalize(json::parse("[1.0, -0.0, 100, 1e2, {}, []]")), "[1,0,100,100,{},[]]");
}
