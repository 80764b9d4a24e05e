#include <afxdp/ring.hpp>
#include <gtest/gtest.h>
TEST(Ring, Placeholder) { SUCCEED(); }
