// A split of a symbolic extent (4 rows of a GEMM-like block over n rows) is peeled: the
// full tiles, floordiv(n, 4) of them, run the 4 rows; the partial tile, if any
// (floordiv(mod(n, 4) + 3, 4) iterations: 0 or 1), starts at floordiv(n, 4) and runs its
// rows to what is left, mod(n, 4). Neither needs the guard `row < n` that a split which does
// not divide its extent otherwise takes, so a register block's rows stay unguarded.
// RUN: minitvm-opt %s -p convert-te-to-loop | filecheck %s

// The sizes a kernel uses are computed once, at its top (an outlined parallel loop gets
// them as it gets any value from outside).
// CHECK:         %[[FULL:\w+]] = loop.size "floordiv(n, 4)"
// CHECK-NEXT:    %[[PART:\w+]] = loop.size "floordiv(mod(n, 4) + 3, 4)"
// CHECK-NEXT:    %[[LEFT:\w+]] = loop.size "mod(n, 4)"
// CHECK-NEXT:    loop.for %[[O:\w+]] = 0 to %[[FULL]] (at most 536870911) step 1 {
// CHECK-NEXT:      loop.for %{{\w+}} = 0 to 4 step 1 {
// CHECK:         loop.for %[[T:\w+]] = 0 to %[[PART]] (at most 1) step 1 {
// CHECK-NEXT:      %[[TILE:\w+]] = arith.addi %[[FULL]], %[[T]] : index
// CHECK-NEXT:      loop.for %{{\w+}} = 0 to %[[LEFT]] (at most 3) step 1 {
// CHECK-NOT:     loop.if

func.func @rows_0(%a: tensor<?x16xf32, #graph.dims<"n">>, %b: tensor<16x32xf32>) -> tensor<?x32xf32, #graph.dims<"n">> attributes {te.kernel} {
  %c = te.compute (%i, %j) in ["n", 32] sum (%k) in [16] {schedule = [#te.split<"i0", 4>, #te.reorder<["i0.o", "r0", "i0.i", "i1"]>, #te.unroll<"i0.i">]} : tensor<?x32xf32, #graph.dims<"n">> {
    %x = te.read %a[%i, %k] : tensor<?x16xf32, #graph.dims<"n">>
    %y = te.read %b[%k, %j] : tensor<16x32xf32>
    %p = arith.mulf %x, %y : f32
    te.yield %p : f32
  }
  func.return %c : tensor<?x32xf32, #graph.dims<"n">>
}
