// excerpt(): file content in a message is escaped (nothing a terminal acts on gets through) and
// bounded (a cut excerpt states the full size).
#include "kiln/core/excerpt.h"

#include <gtest/gtest.h>

#include <string>

using kiln::bare_excerpt;
using kiln::excerpt;
using kiln::is_plain_text;

TEST(Excerpt, QuotesShortTextAsItIs) {
  EXPECT_EQ(excerpt("abc"), "'abc'");
  EXPECT_EQ(excerpt(""), "''");
  EXPECT_EQ(bare_excerpt("{\"a\": 1}"), "{\"a\": 1}");
  EXPECT_EQ(excerpt("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5"),
            "'caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5'");
}

TEST(Excerpt, EscapesControlBytesAndTheNul) {
  EXPECT_EQ(excerpt("\x1b]0;owned\x07"), "'\\x1b]0;owned\\x07'");
  EXPECT_EQ(excerpt(std::string("a\0b", 3)), "'a\\x00b'");
  EXPECT_EQ(excerpt("1\n2\r3\t4\x7f"), "'1\\x0a2\\x0d3\\x094\\x7f'");
}

TEST(Excerpt, EscapesC1ControlsAndBidirectionalOverrides) {
  EXPECT_EQ(excerpt("\xc2\x9b"
                    "2J"),
            "'\\xc2\\x9b2J'");  // U+009B, the 8-bit CSI
  EXPECT_EQ(excerpt("ab\xe2\x80\xae"
                    "cd"),
            "'ab\\xe2\\x80\\xaecd'");  // U+202E, right-to-left
}

TEST(Excerpt, EscapesBytesThatAreNotUtf8) {
  EXPECT_EQ(excerpt("\xff\xfe"), "'\\xff\\xfe'");
  EXPECT_EQ(excerpt("\xc0\xaf"), "'\\xc0\\xaf'");           // overlong '/'
  EXPECT_EQ(excerpt("\xed\xa0\x80"), "'\\xed\\xa0\\x80'");  // a surrogate
  EXPECT_EQ(excerpt("x\xe2\x82"), "'x\\xe2\\x82'");         // cut short
  EXPECT_EQ(excerpt("\x80z"), "'\\x80z'");                  // a stray continuation byte
}

TEST(Excerpt, CutsLongTextAndStatesTheFullSize) {
  const std::string cell(5 * 1024 * 1024, 'a');
  const std::string shown = excerpt(cell);
  EXPECT_EQ(shown, "'" + std::string(kiln::kExcerptBytes, 'a') + "\u2026' (5242880 bytes)");
  EXPECT_EQ(bare_excerpt("abcdef", 3), "abc\u2026 (6 bytes)");
  EXPECT_EQ(excerpt("abc", 3), "'abc'");  // exactly the bound: not cut
}

TEST(Excerpt, NeverCutsInsideACharacter) {
  // "é" is two bytes: within 4 bytes "aé" (3) fits, "aéé" (5) does not, and half an "é" is not
  // shown.
  EXPECT_EQ(excerpt("a\xc3\xa9\xc3\xa9", 4), "'a\xc3\xa9\u2026' (5 bytes)");
}

TEST(Excerpt, StaysBoundedWhateverTheBytes) {
  std::string worst;
  for (int i = 0; i < 100000; ++i) worst += static_cast<char>(i % 256);
  const std::string shown = excerpt(worst);
  EXPECT_LE(shown.size(), 4 * kiln::kExcerptBytes + 40);
  for (unsigned char c : shown) EXPECT_TRUE(c >= 0x20 && c != 0x7f) << static_cast<int>(c);
  EXPECT_NE(shown.find("(100000 bytes)"), std::string::npos) << shown;
}

TEST(Excerpt, PlainTextIsWhatNeedsNoEscaping) {
  EXPECT_TRUE(is_plain_text("mlp:784-10 caf\xc3\xa9"));
  EXPECT_TRUE(is_plain_text(""));
  EXPECT_FALSE(is_plain_text("a\x1b[2J"));
  EXPECT_FALSE(is_plain_text("\xff"));
  EXPECT_FALSE(is_plain_text("a\nb"));
}
