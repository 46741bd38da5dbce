// A split of a symbolic extent (4 rows of a GEMM-like block over n rows) is peeled: the
// full tiles, floordiv(n, 4) of them, run the 4 rows; the partial tile starts at
// floordiv(n, 4) and, for a split no wider than MAX_TAIL_VERSIONS (a register block), comes
// in one version per size it can have (mod(n, 4) = 1, 2 or 3 rows, each a `loop.if`), so
// that its rows are a static extent, unrolled like the full tiles'. None needs the guard
// `row < n` that a split which does not divide its extent otherwise takes.
// RUN: minitvm-opt %s -p convert-te-to-loop | filecheck %s

// The sizes a kernel uses are computed once, at its top (an outlined parallel loop gets
// them as it gets any value from outside).
// CHECK:         %[[FULL:\w+]] = loop.size "floordiv(n, 4)"
// CHECK-NEXT:    %[[LEFT:\w+]] = loop.size "mod(n, 4)"
// CHECK-NEXT:    loop.for %[[O:\w+]] = 0 to %[[FULL]] (at most 536870911) step 1 {
// CHECK-NEXT:      loop.for %{{\w+}} = 0 to 4 step 1 {
// CHECK:         %[[ONE:\w+]] = arith.constant 1 : index
// CHECK-NEXT:    %[[IS1:\w+]] = arith.cmpi eq, %[[LEFT]], %[[ONE]] : index
// CHECK-NEXT:    loop.if %[[IS1]] {
// CHECK-NEXT:      loop.for %[[T:\w+]] = 0 to 1 step 1 {
// CHECK-NEXT:        %{{\w+}} = arith.addi %[[FULL]], %[[T]] : index
// CHECK-NEXT:        loop.for %{{\w+}} = 0 to 1 step 1 {
// CHECK:         %[[TWO:\w+]] = arith.constant 2 : index
// CHECK-NEXT:    %[[IS2:\w+]] = arith.cmpi eq, %[[LEFT]], %[[TWO]] : index
// CHECK-NEXT:    loop.if %[[IS2]] {
// CHECK:               loop.for %{{\w+}} = 0 to 2 step 1 {
// CHECK:         %[[THREE:\w+]] = arith.constant 3 : index
// CHECK-NEXT:    %[[IS3:\w+]] = arith.cmpi eq, %[[LEFT]], %[[THREE]] : index
// CHECK-NEXT:    loop.if %[[IS3]] {
// CHECK:               loop.for %{{\w+}} = 0 to 3 step 1 {
// CHECK-NOT:     arith.cmpi eq, %[[LEFT]]
// CHECK:         func.return

func.func @rows_0(%a: tensor<?x16xf32, #graph.dims<"n">>, %b: tensor<16x32xf32>) -> tensor<?x32xf32, #graph.dims<"n">> attributes {te.kernel} {
  %c = te.compute (%i, %j) in ["n", 32] sum (%k) in [16] {schedule = [#te.split<"i0", 4>, #te.reorder<["i0.o", "r0", "i0.i", "i1"]>, #te.unroll<"i0.i">]} : tensor<?x32xf32, #graph.dims<"n">> {
    %x = te.read %a[%i, %k] : tensor<?x16xf32, #graph.dims<"n">>
    %y = te.read %b[%k, %j] : tensor<16x32xf32>
    %p = arith.mulf %x, %y : f32
    te.yield %p : f32
  }
  func.return %c : tensor<?x32xf32, #graph.dims<"n">>
}
