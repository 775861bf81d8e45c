// Every registered primitive has test rows, a shape rule and an implementation.
#include "test_util.h"

using namespace strata;

TEST(Registry, EveryPrimitiveHasTestRows) {
  std::vector<std::string> missing;
  for (const Primitive *p : all_primitives())
    if (!testutil::tested_primitives().count(p->name))
      missing.push_back(p->name);
  std::string list;
  for (auto &m : missing)
    list += m + " ";
  EXPECT_TRUE(missing.empty()) << "primitives without test rows: " << list;
}

TEST(Registry, LookupAndDuplicates) {
  const Primitive *add = find_primitive("add");
  ASSERT_NE(add, nullptr);
  EXPECT_TRUE(add->has(kElementwise));
  EXPECT_EQ(find_primitive("no_such_primitive"), nullptr);
  Primitive dup;
  dup.name = "add";
  dup.shape_rule = add->shape_rule;
  dup.impl = add->impl;
  EXPECT_THROW(register_primitive(dup), Error);
}

TEST(Registry, ParamsAreSortedAndHashed) {
  Params a{{"b", int64_t{1}}, {"a", std::vector<int64_t>{1, 2}}};
  Params b{{"a", std::vector<int64_t>{1, 2}}, {"b", int64_t{1}}};
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.hash(), b.hash());
  EXPECT_EQ(a.str(), "a=[1,2], b=1");
  EXPECT_THROW(a.get_int("missing"), Error);
  EXPECT_THROW(a.get_int("a"), Error);
}
