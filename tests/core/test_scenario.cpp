// Scenario values: checks with field paths and columns, and the JSON form (docs/SCENARIO.md).
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "bankviz/scenario.h"
#include "helpers.h"

using namespace bankviz;

namespace {

using test::step;

Scenario transpose_scenario() {
  Scenario s;
  s.name = "t";
  s.steps = {step(StepKind::Store, "tile[threadIdx.y][threadIdx.x]"), step(StepKind::Sync),
             step(StepKind::Load, "tile[threadIdx.x][threadIdx.y]")};
  return s;
}

// The one diagnostic whose path is `path`; fails the test when there is none.
Diagnostic find_diag(const std::vector<Diagnostic>& ds, const std::string& path) {
  for (const Diagnostic& d : ds)
    if (d.path == path) return d;
  std::string all;
  for (const Diagnostic& d : ds) all += "\n  " + d.format();
  ADD_FAILURE() << "no diagnostic at " << path << "; got:" << all;
  return {};
}

std::vector<Diagnostic> load_errors(const std::string& json) {
  ScenarioLoad l = scenario_from_json(json);
  EXPECT_FALSE(l.scenario.has_value());
  return l.errors;
}

}  // namespace

TEST(StepKind, NamesRoundTrip) {
  for (StepKind k : {StepKind::Store, StepKind::Load, StepKind::Sync, StepKind::Atomic}) {
    EXPECT_EQ(parse_step_kind(step_kind_name(k)), k);
  }
  EXPECT_FALSE(parse_step_kind("Load").has_value());
  EXPECT_FALSE(parse_step_kind("").has_value());
}

TEST(StepLoop, IterationsFollowTheCLoop) {
  Step st;
  EXPECT_EQ(st.iterations(), 1);
  st.loop_var = "i";
  st.loop_to = 21;
  EXPECT_EQ(st.iterations(), 21);
  st.loop_step = 4;  // 0 4 8 12 16 20
  EXPECT_EQ(st.iterations(), 6);
  st.loop_from = 16, st.loop_to = 0, st.loop_step = -4;  // 16 12 8 4
  EXPECT_EQ(st.iterations(), 4);
  st.loop_step = 0;
  EXPECT_EQ(st.iterations(), 0);
}

TEST(Scenario, FindTileByNameOrFirst) {
  Scenario s;
  s.tiles = {TileDecl{}, TileDecl{}};
  s.tiles[1].name = "other";
  EXPECT_EQ(s.find_tile(""), &s.tiles[0]);
  EXPECT_EQ(s.find_tile("other"), &s.tiles[1]);
  EXPECT_EQ(s.find_tile("nope"), nullptr);
  EXPECT_EQ(s.warps(), 32);
  s.block[0] = 40, s.block[1] = 1;
  EXPECT_EQ(s.warps(), 2);
}

TEST(Diagnostic, FormatNamesPathAndColumn) {
  EXPECT_EQ((Diagnostic{"steps[2].index", 7, "expected ']'"}.format()),
            "steps[2].index col 7: expected ']'");
  EXPECT_EQ((Diagnostic{"block", 0, "too many"}.format()), "block: too many");
  EXPECT_EQ((Diagnostic{"", 0, "plain"}.format()), "plain");
}

TEST(Check, AnAtomicOnATypeWithoutAtomicAddIsRefusedAsSourceAndRunRefuseIt) {
  // analyze used to give figures for atomics on char, short, half, bf16, long long, float2 and
  // int4 that the generated kernel cannot hold (issue 30): kinds.h's `atomic` column decides.
  int refused = 0, accepted = 0;
  for (const ElemType& t : elem_types()) {
    Scenario s;
    s.tiles[0].elem = std::string(t.name);
    s.tiles[0].dims = {64};
    s.block[0] = 64, s.block[1] = 1;
    Step st = step(StepKind::Atomic, "tile[threadIdx.x]");
    st.value = "1";
    s.steps = {st};
    bool named = false;
    for (const Diagnostic& d : check(s))
      named |= d.path == "steps[0].kind" &&
               d.message.find("atomicAdd on " + std::string(t.name)) != std::string::npos;
    EXPECT_EQ(named, !t.atomic) << t.name;
    (t.atomic ? accepted : refused) += 1;
  }
  EXPECT_EQ(accepted, 6);  // int, unsigned, unsigned int, float, unsigned long long, double
  EXPECT_GT(refused, 20);
  EXPECT_EQ(atomic_problem(*find_elem_type("char")),
            "atomicAdd on char in shared memory: the generated kernels support atomics on int, "
            "unsigned int, float, unsigned long long and double");
}

TEST(Check, ValidScenarioHasNoDiagnostics) {
  EXPECT_TRUE(check(transpose_scenario()).empty());
}

TEST(Check, BlockDimensionsFollowCudaLimits) {
  Scenario s = transpose_scenario();
  s.block[0] = 0;
  EXPECT_NE(find_diag(check(s), "block[0]").message.find("between 1 and 1024"), std::string::npos);
  s.block[0] = 1, s.block[1] = 1, s.block[2] = 65;
  EXPECT_NE(find_diag(check(s), "block[2]").message.find("between 1 and 64"), std::string::npos);
  s.block[0] = 64, s.block[1] = 32, s.block[2] = 1;  // 2048 threads
  EXPECT_NE(find_diag(check(s), "block").message.find("2048 threads; a block has at most 1024"),
            std::string::npos);
  s.block[0] = 1025, s.block[1] = 1;
  find_diag(check(s), "block[0]");
  s.block[0] = 32, s.grid = 0;
  find_diag(check(s), "grid");
}

TEST(Check, TileErrorsNameTheField) {
  Scenario s = transpose_scenario();
  s.tiles[0].elem = "quad";
  EXPECT_NE(find_diag(check(s), "tiles[0].elem").message.find("unknown element type 'quad'"),
            std::string::npos);
  s = transpose_scenario();
  s.tiles.push_back(TileDecl{});  // a second "tile"
  s.tiles[1].base = 4096;
  EXPECT_NE(find_diag(check(s), "tiles[1].name").message.find("already declared"),
            std::string::npos);
  s.tiles[1].name = "b";
  s.tiles[1].base = 1024;  // inside tile's 4096 bytes
  EXPECT_NE(find_diag(check(s), "tiles[1].base").message.find("overlaps tile 'tile'"),
            std::string::npos);
  s.tiles.clear();
  find_diag(check(s), "tiles");
}

TEST(Check, ConstantAndLetNamesMustBeValidAndUnique) {
  Scenario s = transpose_scenario();
  s.constants = {{"N", 32}, {"N", 33}, {"threadIdx", 1}, {"2x", 0}};
  auto ds = check(s);
  EXPECT_NE(find_diag(ds, "constants[1].name").message.find("already defined"), std::string::npos);
  find_diag(ds, "constants[2].name");
  find_diag(ds, "constants[3].name");
  s.constants = {{"N", 32}};
  s.lets = {{"N", "1"}, {"ok", "threadIdx.x +"}};
  ds = check(s);
  EXPECT_NE(find_diag(ds, "lets[0].name").message.find("already defined"), std::string::npos);
  Diagnostic d = find_diag(ds, "lets[1].expr");
  EXPECT_EQ(d.column, 14);  // just past the '+'
}

TEST(Check, IndexParseErrorsCarryTheColumn) {
  Scenario s = transpose_scenario();
  s.steps[2].index = "tile[threadIdx.x][threadIdx.y";
  Diagnostic d = find_diag(check(s), "steps[2].index");
  EXPECT_EQ(d.column, 30);
  EXPECT_NE(d.message.find("expected ']'"), std::string::npos);
  s.steps[2].index = "other[threadIdx.x]";
  d = find_diag(check(s), "steps[2].index");
  EXPECT_EQ(d.column, 1);
  EXPECT_NE(d.message.find("expected the array 'tile'"), std::string::npos);
}

TEST(Check, SubscriptCountMustMatchTheTileRank) {
  Scenario s = transpose_scenario();
  s.steps[0].index = "tile[threadIdx.x]";
  EXPECT_EQ(find_diag(check(s), "steps[0].index").message,
            "tile 'tile' has 2 dimensions but the index has 1 subscript");
  s = transpose_scenario();
  s.tiles[0].dims = {1024};
  s.tiles[0].dynamic = true;
  EXPECT_EQ(find_diag(check(s), "steps[0].index").message,
            "tile 'tile' has 1 dimension but the index has 2 subscripts");
}

TEST(Check, StepFieldsAreChecked) {
  Scenario s = transpose_scenario();
  s.steps[0].tile = "nope";
  EXPECT_NE(find_diag(check(s), "steps[0].tile").message.find("no tile named 'nope'"),
            std::string::npos);
  s = transpose_scenario();
  s.steps[0].guard = "threadIdx.x <";
  find_diag(check(s), "steps[0].guard");
  s = transpose_scenario();
  s.steps[2].value = "1";
  EXPECT_NE(find_diag(check(s), "steps[2].value").message.find("a load has no stored value"),
            std::string::npos);
  s = transpose_scenario();
  s.steps[0].value = "(1";
  find_diag(check(s), "steps[0].value");
  s = transpose_scenario();
  s.steps[0].index = "";
  find_diag(check(s), "steps[0].index");
}

TEST(Check, LoopsMustBeSaneAndBounded) {
  Scenario s = transpose_scenario();
  Step& st = s.steps[2];
  st.loop_var = "i";
  st.loop_to = 10;
  EXPECT_TRUE(check(s).empty());
  st.loop_step = 0;
  find_diag(check(s), "steps[2].loop.step");
  st.loop_step = -1;  // for (i = 0; i > 10; i--) never runs
  EXPECT_NE(find_diag(check(s), "steps[2].loop").message.find("never runs"), std::string::npos);
  st.loop_step = 1;
  st.loop_to = 100000;
  EXPECT_NE(find_diag(check(s), "steps[2].loop").message.find("at most 4096"), std::string::npos);
  st.loop_to = 10;
  st.loop_var = "threadIdx";
  find_diag(check(s), "steps[2].loop.var");
  s.constants = {{"i", 1}};
  st.loop_var = "i";
  EXPECT_NE(find_diag(check(s), "steps[2].loop.var").message.find("already a constant"),
            std::string::npos);
}

TEST(Check, StepsMustExistAndUnrollBounded) {
  Scenario s = transpose_scenario();
  s.steps.clear();
  find_diag(check(s), "steps");
  s.steps = {step(StepKind::Sync)};
  EXPECT_NE(find_diag(check(s), "steps").message.find("only __syncthreads()"), std::string::npos);
  s = transpose_scenario();
  for (Step& st : s.steps) st.loop_var = 'i', st.loop_to = 2000;  // 6000 executed steps
  EXPECT_NE(find_diag(check(s), "steps").message.find("6000 executed steps"), std::string::npos);
}

TEST(Check, UnknownArchListsTheKnownOnes) {
  Scenario s = transpose_scenario();
  s.arch = "volta";
  EXPECT_NE(find_diag(check(s), "arch").message.find("hopper"), std::string::npos);
}

// [JSON]

TEST(ScenarioJson, RoundTripsEveryField) {
  Scenario s = transpose_scenario();
  s.name = "everything";
  s.title = "All fields";
  s.description = "What to notice.";
  s.source = "data-layout-in-shared-memory.txt";
  s.arch = "kepler8";
  s.tiles[0].elem = "float2";
  s.tiles[0].dims = {8, 4, 16};
  s.tiles[0].pad = 1;
  s.tiles[0].base = 64;
  s.tiles[0].swizzle = {2, 0, 3};
  TileDecl dyn;
  dyn.name = "dyn";
  dyn.dims = {256};
  dyn.dynamic = true;
  dyn.base = 16384;
  s.tiles.push_back(dyn);
  s.block[0] = 16, s.block[1] = 4, s.block[2] = 2;
  s.grid = 7;
  s.constants = {{"Z", 3}, {"A", -1}};  // order kept, not sorted
  s.lets = {{"row", "threadIdx.y * 17"}, {"col", "row + threadIdx.x"}};
  s.steps = {step(StepKind::Store, "tile[threadIdx.z][threadIdx.y][threadIdx.x]"),
             step(StepKind::Sync), step(StepKind::Atomic, "dyn[col % 256]"),
             step(StepKind::Load, "[col + i]")};
  s.steps[0].guard = "threadIdx.x < 8";
  s.steps[0].value = "row";
  s.steps[0].label = "init";
  s.steps[2].tile = "dyn";
  s.steps[2].value = "1";
  s.steps[3].tile = "dyn";
  s.steps[3].loop_var = "i";
  s.steps[3].loop_from = 20, s.steps[3].loop_to = 4, s.steps[3].loop_step = -4;
  const std::string text = scenario_to_json(s);
  ScenarioLoad back = scenario_from_json(text);
  ASSERT_TRUE(back.scenario) << (back.errors.empty() ? "" : back.errors[0].format()) << "\n"
                             << text;
  const Scenario& b = *back.scenario;
  EXPECT_EQ(scenario_to_json(b), text);
  EXPECT_EQ(b.title, s.title);
  EXPECT_EQ(b.tiles[0].swizzle.shift, 3);
  EXPECT_EQ(b.tiles[0].dims, (std::vector<int64_t>{8, 4, 16}));
  EXPECT_TRUE(b.tiles[1].dynamic);
  EXPECT_EQ(b.block[2], 2);
  EXPECT_EQ(b.grid, 7);
  ASSERT_EQ(b.constants.size(), 2u);
  EXPECT_EQ(b.constants[0].name, "Z");
  EXPECT_EQ(b.lets[1].expr, "row + threadIdx.x");
  ASSERT_EQ(b.steps.size(), 4u);
  EXPECT_EQ(b.steps[0].guard, "threadIdx.x < 8");
  EXPECT_EQ(b.steps[0].label, "init");
  EXPECT_EQ(b.steps[2].kind, StepKind::Atomic);
  EXPECT_EQ(b.steps[3].loop_var, "i");
  EXPECT_EQ(b.steps[3].loop_from, 20);
  EXPECT_EQ(b.steps[3].loop_step, -4);
}

TEST(ScenarioJson, MinimalFileTakesDefaults) {
  ScenarioLoad l = scenario_from_json(
      R"({"steps": [{"kind": "load", "index": "tile[threadIdx.y][threadIdx.x]"}]})");
  ASSERT_TRUE(l.scenario);
  EXPECT_EQ(l.scenario->arch, "hopper");
  EXPECT_EQ(l.scenario->tiles.size(), 1u);
  EXPECT_EQ(l.scenario->block[0], 32);
  EXPECT_EQ(l.scenario->block[1], 32);
}

TEST(ScenarioJson, ConstantsMayBeAnObjectInWrittenOrder) {
  ScenarioLoad l = scenario_from_json(R"({"constants": {"ZZ": 2, "AA": 1},
      "steps": [{"kind": "load", "index": "[ZZ][AA]"}]})");
  ASSERT_TRUE(l.scenario);
  ASSERT_EQ(l.scenario->constants.size(), 2u);
  EXPECT_EQ(l.scenario->constants[0].name, "ZZ");
  EXPECT_EQ(l.scenario->constants[1].value, 1);
}

TEST(ScenarioJson, BlockTakesOneToThreeEntries) {
  ScenarioLoad l = scenario_from_json(
      R"({"block": [64], "tiles": [{"dims": [64]}], "steps": [{"kind": "load", "index": "[threadIdx.x]"}]})");
  ASSERT_TRUE(l.scenario);
  EXPECT_EQ(l.scenario->block[0], 64);
  EXPECT_EQ(l.scenario->block[1], 1);
  EXPECT_EQ(l.scenario->block[2], 1);
  EXPECT_EQ(find_diag(load_errors(R"({"block": [1,2,3,4]})"), "block").message,
            "expected 1 to 3 integers [x, y, z], got 4");
}

TEST(ScenarioJson, UnknownKeysAreErrorsWithTheirPath) {
  auto ds = load_errors(R"({"nmae": "x", "tiles": [{"padd": 1}],
      "steps": [{"kind": "load", "index": "[0][0]", "loop": {"var": "i", "to": 2, "by": 1}}]})");
  EXPECT_NE(find_diag(ds, "nmae").message.find("unknown key (expected one of: name,"),
            std::string::npos);
  find_diag(ds, "tiles[0].padd");
  find_diag(ds, "steps[0].loop.by");
}

TEST(ScenarioJson, WrongTypesAreErrorsNotExceptions) {
  auto ds = load_errors(R"({"name": 3, "tiles": [{"pad": "1", "dims": [32, 1.5], "dynamic": 1}],
      "block": {"x": 1}, "grid": true, "constants": 5, "lets": [{"name": "a", "expr": 7}],
      "steps": [{"kind": "load", "index": ["x"]}, 7, {"kind": 2}, {"kind": "read"}]})");
  EXPECT_EQ(find_diag(ds, "name").message, "expected a string, got an integer");
  EXPECT_EQ(find_diag(ds, "tiles[0].pad").message, "expected an integer, got a string");
  EXPECT_EQ(find_diag(ds, "tiles[0].dims[1]").message,
            "expected an integer, got a fractional number");
  EXPECT_EQ(find_diag(ds, "tiles[0].dynamic").message, "expected true or false, got an integer");
  EXPECT_EQ(find_diag(ds, "block").message, "expected an array, got an object");
  find_diag(ds, "grid");
  find_diag(ds, "constants");
  find_diag(ds, "lets[0].expr");
  find_diag(ds, "steps[0].index");
  EXPECT_EQ(find_diag(ds, "steps[1]").message, "expected an object, got an integer");
  find_diag(ds, "steps[2].kind");
  EXPECT_NE(find_diag(ds, "steps[3].kind").message.find("unknown kind 'read'"), std::string::npos);
  EXPECT_EQ(find_diag(load_errors("[1, 2]"), "(top level)").message,
            "expected an object, got an array");
}

TEST(ScenarioJson, MissingRequiredMembersAreNamed) {
  auto ds = load_errors(R"({"constants": [{"name": "N"}], "lets": [{"expr": "1"}],
      "steps": [{"index": "[0][0]"}, {"kind": "load", "index": "[0][0]", "loop": {"var": "i"}}]})");
  find_diag(ds, "constants[0].value");
  find_diag(ds, "lets[0].name");
  find_diag(ds, "steps[0].kind");
  find_diag(ds, "steps[1].loop.to");
}

TEST(ScenarioJson, SyntaxErrorsGiveLineAndColumn) {
  auto ds = load_errors("{\n  \"name\": \"x\",\n  \"grid\": 1,,\n}");
  ASSERT_EQ(ds.size(), 1u);
  EXPECT_EQ(ds[0].path, "line 3");
  EXPECT_EQ(ds[0].column, 13);
  EXPECT_EQ(ds[0].format().rfind("line 3 col 13: invalid JSON: ", 0), 0u) << ds[0].format();
  ds = load_errors("");
  ASSERT_EQ(ds.size(), 1u);
  EXPECT_NE(ds[0].message.find("invalid JSON"), std::string::npos);
}

TEST(ScenarioJson, CheckErrorsComeBackFromLoading) {
  auto ds = load_errors(R"({"block": [32, 33], "steps": [{"kind": "load", "index": "tile[tx]"}]})");
  find_diag(ds, "block");
  find_diag(ds, "steps[0].index");
}

TEST(ScenarioJson, HostileInputNeverThrows) {
  const char* inputs[] = {"{",
                          "}",
                          "null",
                          "\"str\"",
                          "{\"steps\": null}",
                          "{\"tiles\": [[]]}",
                          "{\"grid\": 99999999999999999999}",
                          "{\"grid\": -9223372036854775808}",
                          "{\"tiles\": [{\"swizzle\": 3}]}",
                          "{\"tiles\": [{\"dims\": [1e400]}]}",
                          "\xff\xfe{}",
                          "{\"steps\": [{\"kind\": \"sync\", \"loop\": []}]}"};
  for (const char* in : inputs) {
    ScenarioLoad l;
    EXPECT_NO_THROW(l = scenario_from_json(in)) << in;
    EXPECT_FALSE(l.scenario) << in;
    EXPECT_FALSE(l.errors.empty()) << in;
  }
}

TEST(ScenarioFile, MissingFileIsAClearError) {
  ScenarioLoad l = load_scenario_file("/nonexistent/dir/none.json");
  ASSERT_EQ(l.errors.size(), 1u);
  EXPECT_EQ(l.errors[0].format(),
            "cannot read the scenario file: '/nonexistent/dir/none.json': no such file");
}

TEST(ScenarioFile, UnnamedFileIsNamedAfterItsStem) {
  const std::string path = testing::TempDir() + "bankviz_my-lesson.json";
  {
    std::ofstream f(path);
    f << R"({"steps": [{"kind": "store", "index": "tile[threadIdx.y][threadIdx.x]"}]})";
  }
  ScenarioLoad l = load_scenario_file(path);
  std::remove(path.c_str());
  ASSERT_TRUE(l.scenario);
  EXPECT_EQ(l.scenario->name, "bankviz_my-lesson");
}
