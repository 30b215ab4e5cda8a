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
  struct Case {
    uint64_t bits;
    const char* want;
  };
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

// Deep nesting: the pre-scan refuses it before json::parse, canonicalize refuses it rather than
// recursing (1e5 objects / 1e6 arrays deep overflowed the stack).
#include "harness/core/errors.hpp"
#include "harness/core/json_io.hpp"
#include "harness/core/text.hpp"

TEST(JsonIo, NestingDepthIsStringAware) {
  EXPECT_EQ(kgate::json_nesting_depth("1"), 0);
  EXPECT_EQ(kgate::json_nesting_depth(R"({"a": [1, {"b": []}]})"), 4);
  EXPECT_EQ(kgate::json_nesting_depth(R"(["[[[[", "\"[{", {"k\\": "]]"}])"), 2);
  std::string deep = std::string(100, '[') + std::string(100, ']');
  EXPECT_EQ(kgate::json_nesting_depth(deep, 64), 65);  // stops once past the bound
  EXPECT_EQ(kgate::json_nesting_depth(deep, 1000), 100);
}

TEST(JsonIo, DeepInputIsAnInputErrorNotACrash) {
  std::string arrays = std::string(1000000, '[') + std::string(1000000, ']');
  std::string objects;
  for (int i = 0; i < 100000; ++i) objects += "{\"a\":";
  objects += "1" + std::string(100000, '}');
  for (const std::string* s : {&arrays, &objects}) {
    try {
      kgate::parse_json_bounded(*s, "deep.json");
      ADD_FAILURE() << "no InputError";
    } catch (const kgate::InputError& e) {
      EXPECT_STREQ(e.what(), "deep.json: JSON nested deeper than 64 levels");
    }
    std::string why;
    EXPECT_FALSE(kgate::parse_json_checked(*s, why));
    EXPECT_EQ(why, "nested deeper than 64 levels");
  }
  std::string ok64 = std::string(64, '[') + std::string(64, ']');
  EXPECT_EQ(kgate::canonicalize(kgate::parse_json_bounded(ok64, "x")), ok64);
  EXPECT_THROW(kgate::parse_json_bounded("[1,", "x"), kgate::InputError);
}

TEST(JsonIo, MalformedJsonMessageIsBounded) {
  // nlohmann echoes the last token read: here a 1 MB unterminated string with a newline.
  std::string s = "[\"" + std::string(1000000, 'x') + "\n";
  try {
    kgate::parse_json_bounded(s, "big.json");
    ADD_FAILURE() << "no InputError";
  } catch (const kgate::InputError& e) {
    std::string m = e.what();
    EXPECT_LT(m.size(), 400u) << m.substr(0, 400);
    EXPECT_EQ(m.find('\n'), std::string::npos);
    EXPECT_EQ(m.rfind("big.json: malformed JSON (", 0), 0u) << m;
  }
}

TEST(Jcs, CanonicalizeRefusesDeepValues) {
  json v = json::array();
  for (int i = 0; i < 100; ++i) v = json::array({v});
  EXPECT_THROW(canonicalize(v), std::invalid_argument);
}

TEST(Text, QuotedEscapesAndBounds) {
  using kgate::quoted;
  EXPECT_EQ(quoted("row-1"), "'row-1'");
  EXPECT_EQ(quoted("a\nb\tc\x01"), "'a\\nb\\tc\\x01'");
  EXPECT_EQ(quoted("it's"), "'it\\'s'");
  EXPECT_EQ(quoted("caf\xc3\xa9"), "'caf\xc3\xa9'");       // valid UTF-8 kept
  EXPECT_EQ(quoted("bad\xff\xc3"), "'bad\\xff\\xc3'");     // invalid bytes escaped
  EXPECT_EQ(quoted("\xed\xa0\x80"), "'\\xed\\xa0\\x80'");  // a surrogate is not UTF-8
  std::string q = quoted(std::string(5000000, 'k'));
  EXPECT_LT(q.size(), 160u);
  EXPECT_NE(q.find("\u2026(5000000 bytes)"), std::string::npos) << q;
  EXPECT_EQ(kgate::printable(std::string(300, '\n'), 20).rfind(std::string(10, 'x'), 0), std::string::npos);
}
