// The step kinds' and element types' tables (kinds.h): every kind and type has one row, the
// parser, the model and the messages read them.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "bankviz/analysis.h"
#include "bankviz/kinds.h"
#include "bankviz/scenario.h"

using namespace bankviz;

namespace {

constexpr StepKind kAll[] = {StepKind::Store,  StepKind::Load,     StepKind::Sync,
                             StepKind::Atomic, StepKind::LdMatrix, StepKind::StMatrix,
                             StepKind::CpAsync};

}  // namespace

TEST(StepKinds, EveryKindHasExactlyOneRow) {
  EXPECT_EQ(step_kinds().size(), std::size(kAll));
  std::set<std::string_view> names;
  for (StepKind k : kAll) {
    int rows = 0;
    for (const StepKindInfo& i : step_kinds()) rows += i.kind == k;
    EXPECT_EQ(rows, 1) << step_kind_name(k);
    EXPECT_EQ(step_kind_info(k).kind, k);
    EXPECT_TRUE(names.insert(step_kind_info(k).name).second) << step_kind_name(k);
  }
}

TEST(StepKinds, EveryKindTextParsesAndPrintsBack) {
  std::set<std::string> seen;
  for (const std::string& text : step_kind_texts()) {
    Step st;
    ASSERT_TRUE(parse_step_op(text, st)) << text;
    EXPECT_EQ(st.kind_text(), text);
    EXPECT_TRUE(seen.insert(text).second) << "listed twice: " << text;
  }
  // 4 plain kinds, 2 matrix instructions x 3 sizes x (plain, .trans), 3 copy sizes.
  EXPECT_EQ(seen.size(), 4u + 12u + 3u);
  for (const char* bad : {"", "Store", "ldmatrix", "ldmatrix.x3", "stmatrix.x4.tran", "cp.async",
                          "cp.async.2", "cp.async.32", "sync ", "atomic.x1"}) {
    Step st;
    EXPECT_FALSE(parse_step_op(bad, st)) << bad;
  }
}

TEST(StepKinds, TheFormsLineNamesEveryKind) {
  const std::string forms = step_kind_forms();
  EXPECT_EQ(forms,
            "store, load, atomic, sync, ldmatrix.x1|x2|x4[.trans], stmatrix.x1|x2|x4[.trans] or "
            "cp.async.4|8|16");
  // The JSON reader's message is the table's.
  const ScenarioLoad l =
      scenario_from_json(R"({"tiles":[{"name":"t","elem":"int","dims":[32]}],"block":[32,1,1],)"
                         R"("steps":[{"kind":"peek","index":"[threadIdx.x]"}]})");
  ASSERT_FALSE(l.errors.empty());
  EXPECT_NE(l.errors[0].message.find("unknown kind 'peek' (expected " + forms + ")"),
            std::string::npos)
      << l.errors[0].message;
}

TEST(StepKinds, TheBankModelsInstructionAndWidthComeFromTheRow) {
  Step st;
  ASSERT_TRUE(parse_step_op("ldmatrix.x2.trans", st));
  OpSpec o = st.op(2);
  EXPECT_EQ(o.op, Op::LdMatrix);
  EXPECT_EQ(o.width, 16);
  EXPECT_EQ(o.matrices, 2);
  EXPECT_TRUE(o.trans);
  ASSERT_TRUE(parse_step_op("cp.async.8", st));
  o = st.op(4);
  EXPECT_EQ(o.op, Op::CpAsync);
  EXPECT_EQ(o.width, 8);
  EXPECT_EQ(o.matrices, 0);
  ASSERT_TRUE(parse_step_op("atomic", st));
  o = st.op(8);
  EXPECT_EQ(o.op, Op::Atomic);
  EXPECT_EQ(o.width, 8);
  EXPECT_TRUE(st.info().value);
  EXPECT_FALSE(st.reads());
  ASSERT_TRUE(parse_step_op("ldmatrix.x1", st));
  EXPECT_TRUE(st.reads());
  EXPECT_TRUE(st.info().warp_wide);
  EXPECT_TRUE(st.info().hopper_only);
}

TEST(StepKinds, WrittenStatementsFillTheirNames) {
  EXPECT_EQ(written_statement(step_kind_info(StepKind::Store), "tile[i]", "tid", "sum"),
            "tile[i] = tid;");
  EXPECT_EQ(written_statement(step_kind_info(StepKind::Load), "tile[i]", "tid", "sum"),
            "sum += tile[i];");
  EXPECT_EQ(written_statement(step_kind_info(StepKind::Atomic), "tile[i]", "1", "sum"),
            "atomicAdd(&tile[i], 1);");
  EXPECT_EQ(written_statement(step_kind_info(StepKind::Sync), "", "", ""), "__syncthreads();");
  EXPECT_EQ(written_statement(step_kind_info(StepKind::CpAsync), "tile[i]", "", "sum"), "");
  EXPECT_EQ(fill_in(step_kind_info(StepKind::LdMatrix).ptx, {{"{n}", "4"}, {"{.trans}", ".trans"}}),
            "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16");
  // A name that is not in the list stays as it is; a value holding a name is not filled again.
  EXPECT_EQ(fill_in("{a} {b} {c}", {{"{a}", "{b}"}, {"{b}", "x"}}), "{b} x {c}");
}

TEST(StepKinds, MatrixAndCopyKindsAreCheckedFromTheirRow) {
  Scenario s;
  s.arch = "maxwell";
  s.tiles[0].elem = "half";
  s.tiles[0].dims = {32, 64};
  s.block[0] = 32, s.block[1] = 1;
  Step st;
  ASSERT_TRUE(parse_step_op("cp.async.16", st));
  st.index = "[threadIdx.x][0]";
  s.steps = {st};
  bool hopper_only = false;
  for (const Diagnostic& d : check(s))
    hopper_only |= d.path == "arch" && d.message.find("hopper only") != std::string::npos;
  EXPECT_TRUE(hopper_only);
  st.value = "1";
  s.arch = "hopper";
  s.steps = {st};
  bool no_value = false;
  for (const Diagnostic& d : check(s)) no_value |= d.path == "steps[0].value";
  EXPECT_TRUE(no_value);
}

TEST(ElemTypes, EveryRowIsConsistent) {
  for (const ElemType& t : elem_types()) {
    EXPECT_EQ(t.comp_bytes() * t.lanes, t.bytes) << t.name;
    EXPECT_EQ(t.lanes > 1, !t.make.empty()) << t.name;
    // The component's own row has the component's size and kind.
    const ElemType* comp = find_elem_type(t.comp);
    ASSERT_NE(comp, nullptr) << t.name;
    EXPECT_EQ(comp->bytes, t.comp_bytes()) << t.name;
    EXPECT_EQ(comp->comp_kind, t.comp_kind) << t.name;
    EXPECT_NE(find_elem_type(t.overload), nullptr) << t.name;
    // atomicAdd on shared memory: CUDA's overloads for 4- and 8-byte scalars (not long long).
    if (t.atomic) {
      EXPECT_EQ(t.lanes, 1) << t.name;
      EXPECT_GE(t.bytes, 4) << t.name;
    }
  }
  EXPECT_TRUE(find_elem_type("unsigned char")->plain_sum());
  EXPECT_TRUE(find_elem_type("int")->plain_sum());
  EXPECT_FALSE(find_elem_type("long long")->plain_sum());
  EXPECT_FALSE(find_elem_type("half")->plain_sum());
  EXPECT_FALSE(find_elem_type("char2")->plain_sum());
  EXPECT_EQ(find_elem_type("half2")->overload, "__half2");
  EXPECT_EQ(find_elem_type("unsigned")->overload, "unsigned int");
}
