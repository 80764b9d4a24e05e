// EXPECT_THROW_WITH(statement, type, text): `statement` throws `type` (or a type derived from it)
// whose what() contains `text` and is one line, as our errors are (a tool prints one line); else
// a failure that says what it threw instead, its message included. Like EXPECT_THROW, more can be
// streamed after it. After {fmt}'s EXPECT_THROW_MSG, which compares the whole message.
#pragma once

#include <gtest/gtest.h>

#include <exception>
#include <string>
#include <string_view>

namespace afxdp::test {

// What a statement threw that was not the expected type, for the failure message.
inline std::string describe(const std::exception_ptr& thrown) {
  try {
    std::rethrow_exception(thrown);
  } catch (const std::exception& e) {
    return std::string("another exception: \"") + e.what() + '"';
  } catch (...) {
    return "something that is no std::exception";
  }
}

template <class Exception, class Statement>
::testing::AssertionResult throws_with(const Statement& statement, std::string_view text,
                                       const char* statement_text, const char* type_text) {
  try {
    statement();
  } catch (const Exception& e) {
    const std::string_view what = e.what();
    if (what.find(text) == std::string_view::npos) {
      return ::testing::AssertionFailure() << statement_text << " threw " << type_text << " \""
                                           << what << "\", without \"" << text << '"';
    }
    if (what.find('\n') != std::string_view::npos) {
      return ::testing::AssertionFailure() << statement_text << " threw " << type_text << " \""
                                           << what << "\", more than one line";
    }
    return ::testing::AssertionSuccess();
  } catch (...) {
    return ::testing::AssertionFailure()
           << statement_text << " threw " << describe(std::current_exception()) << ", not "
           << type_text;
  }
  return ::testing::AssertionFailure()
         << statement_text << " threw nothing, not " << type_text << " with \"" << text << '"';
}

}  // namespace afxdp::test

#define EXPECT_THROW_WITH(statement, type, text) \
  EXPECT_TRUE(::afxdp::test::throws_with<type>([&] { statement; }, (text), #statement, #type))
