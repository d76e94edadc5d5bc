// The operand packing rule (dispatch/operand_pack.hpp): which operands TMA cannot read, how many
// bytes their aligned copies take, when copying them pays, and how the call record names them.
#include <gtest/gtest.h>

#include <cstdint>

#include "operand_pack.hpp"
#include "wgmma_plan.hpp"
#include "workspace_pool.hpp"

namespace ptxblas::dispatch {
namespace {

alignas(16) unsigned char g_buffer[64];

GemmCall half_call(gen::Op op_a, gen::Op op_b, std::int64_t m, std::int64_t n, std::int64_t k) {
  GemmCall c;
  c.data = gen::DataType::F16;
  c.op_a = op_a;
  c.op_b = op_b;
  c.m = m;
  c.n = n;
  c.k = k;
  c.a = g_buffer;
  c.b = g_buffer + 32;
  c.lda = ((op_a == gen::Op::N ? m : k) + 7) / 8 * 8;
  c.ldb = ((op_b == gen::Op::N ? k : n) + 7) / 8 * 8;
  return c;
}

TEST(OperandPack, NamesTheOperandsTmaCannotRead) {
  GemmCall c = half_call(gen::Op::N, gen::Op::N, 1024, 1024, 1024);
  EXPECT_EQ(misaligned_operands(c), 0);
  c.lda = 1025;
  EXPECT_EQ(misaligned_operands(c), kPackA);
  c.ldb = 1028;  // a multiple of 4, not of 8
  EXPECT_EQ(misaligned_operands(c), kPackA | kPackB);
  c.lda = 1024;
  EXPECT_EQ(misaligned_operands(c), kPackB);
  c.ldb = 1024;
  c.a = g_buffer + 2;  // an aligned ld from a base one element in
  EXPECT_EQ(misaligned_operands(c), kPackA);
  c.a = g_buffer + 16;
  EXPECT_EQ(misaligned_operands(c), 0);
}

// C goes through a tensor map at beta 0 only where the kernel's own check (wgmma_ptx.hpp) agrees:
// a 16-byte base, ldc a multiple of 8 and, batched, a stride of whole 16-byte units that keeps
// each entry's n columns apart.
TEST(OperandPack, CIsTensorMapWritableExactlyWhereTheKernelChecks) {
  EXPECT_TRUE(c_tma_writable(g_buffer, 1024, false, 0, 1000));
  EXPECT_TRUE(c_tma_writable(g_buffer + 16, 8, false, 0, 1));
  EXPECT_FALSE(c_tma_writable(g_buffer + 2, 1024, false, 0, 1000));
  EXPECT_FALSE(c_tma_writable(g_buffer, 1020, false, 0, 1000));
  EXPECT_TRUE(c_tma_writable(g_buffer, 64, true, 64 * 100, 100));
  EXPECT_TRUE(c_tma_writable(g_buffer, 64, true, 64 * 100 + 8, 100));
  EXPECT_FALSE(c_tma_writable(g_buffer, 64, true, 64 * 100 + 4, 100));  // 8-byte steps
  EXPECT_FALSE(c_tma_writable(g_buffer, 64, true, 64 * 99, 100));       // entries overlap
  EXPECT_FALSE(c_tma_writable(g_buffer, 60, true, 64 * 100, 100));
}

TEST(OperandPack, CopiesTakeTheStoredRowsRoundedUpTo8TimesTheColumns) {
  // A is stored m x k (op N) or k x m (op T); B k x n (op N) or n x k (op T); 2 bytes each.
  const GemmCall nn = half_call(gen::Op::N, gen::Op::N, 13, 5, 9);
  EXPECT_EQ(packed_bytes(nn, kPackA), 16u * 9 * 2);
  EXPECT_EQ(packed_bytes(nn, kPackB), 16u * 5 * 2);
  const GemmCall tt = half_call(gen::Op::T, gen::Op::T, 13, 5, 9);
  EXPECT_EQ(packed_bytes(tt, kPackA), 16u * 13 * 2);
  EXPECT_EQ(packed_bytes(tt, kPackB), 8u * 9 * 2);
  EXPECT_EQ(packed_bytes(tt, kPackA | kPackB), 16u * 13 * 2 + 8u * 9 * 2);
  EXPECT_EQ(packed_bytes(tt, 0), 0u);
}

// The rule with ptxblas's own pool, which keeps kWorkspaceKeepBytes mapped.
bool pays(const GemmCall& c, int which) { return packing_pays(c, which, kWorkspaceKeepBytes); }

TEST(OperandPack, PaysForManyFlopsPerCopiedElementAndMoreBeyondTheKeptWorkspace) {
  // A alone: 2 N flops per element of A (with its padding rows: 4096 for 4095), so N >= 57
  // passes the 112 an element here.
  EXPECT_TRUE(pays(half_call(gen::Op::N, gen::Op::N, 1031, 701, 777), kPackA));
  EXPECT_TRUE(pays(half_call(gen::Op::N, gen::Op::N, 4095, 57, 8192), kPackA));
  EXPECT_FALSE(pays(half_call(gen::Op::N, gen::Op::N, 4095, 56, 8192), kPackA));
  // B alone: 2 M flops per element likewise.
  EXPECT_TRUE(pays(half_call(gen::Op::N, gen::Op::T, 57, 4095, 8192), kPackB));
  EXPECT_FALSE(pays(half_call(gen::Op::N, gen::Op::T, 16, 4095, 8192), kPackB));
  // Too few flops in all (2^28 at least), however many an element.
  EXPECT_FALSE(pays(half_call(gen::Op::N, gen::Op::N, 511, 512, 512), kPackA));
  EXPECT_TRUE(pays(half_call(gen::Op::N, gen::Op::N, 513, 512, 512), kPackA));
  EXPECT_FALSE(pays(half_call(gen::Op::N, gen::Op::N, 411, 410, 410), kPackA | kPackB));
  EXPECT_TRUE(pays(half_call(gen::Op::N, gen::Op::N, 1031, 701, 777), kPackA | kPackB));
  // Within the workspace pool's kept 64 MiB (4096 x 8192 x 2 bytes is exactly that) 112 flops
  // an element do; beyond it 1024 are asked.
  EXPECT_TRUE(pays(half_call(gen::Op::N, gen::Op::N, 4095, 4096, 8192), kPackA));
  EXPECT_TRUE(pays(half_call(gen::Op::N, gen::Op::N, 4097, 4096, 8192), kPackA));
  EXPECT_FALSE(pays(half_call(gen::Op::N, gen::Op::N, 8191, 500, 8192), kPackA));
  EXPECT_TRUE(pays(half_call(gen::Op::N, gen::Op::N, 8191, 520, 8192), kPackA));
  EXPECT_FALSE(pays(half_call(gen::Op::N, gen::Op::N, 4096, 4096, 4096), 0));
  // The default pool keeps nothing mapped: every copy asks 1024 an element.
  EXPECT_TRUE(pays(half_call(gen::Op::N, gen::Op::N, 4095, 500, 8192), kPackA));
  EXPECT_FALSE(packing_pays(half_call(gen::Op::N, gen::Op::N, 4095, 500, 8192), kPackA, 0));
  EXPECT_TRUE(packing_pays(half_call(gen::Op::N, gen::Op::N, 4095, 520, 8192), kPackA, 0));
}

TEST(OperandPack, TheCallRecordNamesTheCopies) {
  EXPECT_STREQ(packed_note(0), "");
  EXPECT_STREQ(packed_note(kPackA), " packed=A");
  EXPECT_STREQ(packed_note(kPackB), " packed=B");
  EXPECT_STREQ(packed_note(kPackA | kPackB), " packed=AB");
}

}  // namespace
}  // namespace ptxblas::dispatch
