// te-apply-records on kernels as convert-graph-to-te emits them: the matmul tuned in the
// records (a 2 x 32 block, rows outermost, k unblocked) gets that config's schedule in place
// of its default and `te.tuned` records the config; the relu, which has no record, keeps its
// default. Records for another thread count do not apply: the kernel keeps its default.
// RUN: rm -f %t.db
// RUN: python %S/Inputs/make_records.py %s %t.db gemm rows=2 cols=32 lanes=16 k_block=0 tile_order=rows_first prefetch=0
// RUN: minitvm-opt %s -p 'te-default-schedule,te-apply-records{records="sqlite:///%t.db" threads=1}' | filecheck %s
// RUN: minitvm-opt %s -p 'te-default-schedule,te-apply-records{records="sqlite:///%t.db" threads=2}' | filecheck %s --check-prefix=OTHER

// CHECK-LABEL: func.func @matmul_0(
// CHECK-SAME:    attributes {te.kernel, te.tuned = {cols = 32 : i64, k_block = 0 : i64, lanes = 16 : i64, prefetch = 0 : i64, rows = 2 : i64, tile_order = "rows_first"}}
// CHECK-NEXT:    te.compute (%{{\w+}}, %{{\w+}}) in [64, 64] sum (%{{\w+}}) in [64] {te.templated, schedule = [#te.split<"i0", 2>, #te.split<"i1", 32>, #te.split<"i1.i", 16>, #te.reorder<["i0.o", "i1.o", "r0", "i0.i", "i1.i.o", "i1.i.i"]>, #te.unroll<"i0.i">, #te.unroll<"i1.i.o">, #te.vectorize<"i1.i.i">]} : tensor<64x64xf32> {
// CHECK-LABEL: func.func @relu_1(
// CHECK-SAME:    attributes {te.kernel} {
// CHECK-NEXT:    te.compute (%{{\w+}}, %{{\w+}}) in [64, 64] : tensor<64x64xf32> {

// OTHER-LABEL: func.func @matmul_0(
// OTHER-SAME:    attributes {te.kernel} {
// OTHER-NEXT:    te.compute (%{{\w+}}, %{{\w+}}) in [64, 64] sum (%{{\w+}}) in [64] {te.templated, schedule = [#te.split<"i0", {{[0-9]+}}>, #te.split<"i1", 64>, #te.split<"i1.i", 16>, #te.reorder<["i1.o", "i0.o", "r0", "i0.i", "i1.i.o", "i1.i.i"]>, #te.unroll<"i0.i">, #te.unroll<"i1.i.o">, #te.vectorize<"i1.i.i">]} : tensor<64x64xf32> {

builtin.module {
  func.func @matmul_0(%0: tensor<64x64xf32>, %1: tensor<64x64xf32>) -> tensor<64x64xf32> attributes {te.kernel} {
    %2 = te.compute (%i0, %i1) in [64, 64] sum (%r0) in [64] {te.templated} : tensor<64x64xf32> {
      %3 = te.read %0[%i0, %r0] : tensor<64x64xf32>
      %4 = te.read %1[%r0, %i1] : tensor<64x64xf32>
      %5 = arith.mulf %3, %4 : f32
      te.yield %5 : f32
    }
    func.return %2 : tensor<64x64xf32>
  }
  func.func @relu_1(%0: tensor<64x64xf32>) -> tensor<64x64xf32> attributes {te.kernel} {
    %1 = te.compute (%i0, %i1) in [64, 64] : tensor<64x64xf32> {
      %2 = te.read %0[%i0, %i1] : tensor<64x64xf32>
      %3 = arith.constant 0.000000e+00 : f32
      %4 = arith.maximumf %2, %3 : f32
      te.yield %4 : f32
    }
    func.return %1 : tensor<64x64xf32>
  }
  func.func @main(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
    %0 = func.call @matmul_0(%a, %b) : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
    %1 = func.call @relu_1(%0) : (tensor<64x64xf32>) -> tensor<64x64xf32>
    func.return %1 : tensor<64x64xf32>
  }
}
