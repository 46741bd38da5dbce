// A split of a symbolic extent (4 rows of a GEMM-like block over n rows) is peeled: the
// whole tiles run the 4 rows; the rows left over, mod(n, 4), run after them. For a split no
// wider than MAX_TAIL_VERSIONS (a register block), where there is a whole tile and at most
// 2 rows left over, the last tile and those rows are shared by two blocks as even as can be
// (n = 5: 3 + 2, not 4 + 1, whose one row keeps few FMAs in flight; n = 7 stays 4 + 3);
// each block comes in one version per size it can have (1 to 3 rows, each a `loop.if`), so
// that its rows are a static extent, unrolled like the whole tiles'. The second block starts `first` rows into the tile. None
// needs the guard `row < n` that a split which does not divide its extent otherwise takes.
// RUN: minitvm-opt %s -p convert-te-to-loop | filecheck %s
// RUN: minitvm-opt %s -p convert-te-to-loop | filecheck %s --check-prefix=UNGUARDED

// The sizes a kernel uses are computed once, at its top (an outlined parallel loop gets
// them as it gets any value from outside).
// CHECK:         %[[FULL:\w+]] = loop.size "floordiv(n, 4)"
// CHECK-NEXT:    %[[LEFT:\w+]] = loop.size "mod(n, 4)"
// CHECK:         %[[AT_MOST_2:\w+]] = arith.cmpi sle, %[[LEFT]], %{{\w+}} : index
// CHECK-NEXT:    %[[SMALL:\w+]] = arith.andi %{{\w+}}, %[[AT_MOST_2]] : i1
// CHECK:         %[[SHARED:\w+]] = arith.andi %[[SMALL]], %{{\w+}} : i1
// CHECK:         %[[TAKEN:\w+]] = arith.select %[[SHARED]], %{{\w+}}, %{{\w+}} : index
// CHECK:         %[[ROWS:\w+]] = arith.addi %[[LEFT]], %{{\w+}} : index
// CHECK:         %[[HALF:\w+]] = arith.floordivsi %{{\w+}}, %{{\w+}} : index
// CHECK-NEXT:    %[[FIRST:\w+]] = arith.select %[[SHARED]], %[[HALF]], %[[ROWS]] : index
// CHECK-NEXT:    %[[SECOND:\w+]] = arith.subi %[[ROWS]], %[[FIRST]] : index
// CHECK-NEXT:    %[[WHOLE:\w+]] = arith.subi %[[FULL]], %[[TAKEN]] : index
// CHECK-NEXT:    loop.for %{{\w+}} = 0 to %[[WHOLE]] (at most 536870911) step 1 {
// CHECK-NEXT:      loop.for %{{\w+}} = 0 to 4 step 1 {
// CHECK:         loop.for %[[BLOCK:\w+]] = 0 to 2 step 1 {
// CHECK:           %[[IS_FIRST:\w+]] = arith.cmpi eq, %[[BLOCK]], %{{\w+}} : index
// CHECK-NEXT:      %[[SIZE:\w+]] = arith.select %[[IS_FIRST]], %[[FIRST]], %[[SECOND]] : index
// CHECK:           %[[OFFSET:\w+]] = arith.select %[[IS_FIRST]], %{{\w+}}, %[[FIRST]] : index
// CHECK:           %[[IS1:\w+]] = arith.cmpi eq, %[[SIZE]], %{{\w+}} : index
// CHECK:           %[[IS2:\w+]] = arith.cmpi eq, %[[SIZE]], %{{\w+}} : index
// CHECK:           %[[IS3:\w+]] = arith.cmpi eq, %[[SIZE]], %{{\w+}} : index
// CHECK-NEXT:      loop.if %[[IS1]] {
// CHECK-NEXT:        loop.for %[[T:\w+]] = 0 to 1 step 1 {
// CHECK-NEXT:          %[[TILE:\w+]] = arith.addi %[[WHOLE]], %[[T]] : index
// CHECK-NEXT:          loop.for %[[R:\w+]] = 0 to 1 step 1 {
// The row: the tile's first, the block's offset into it, then the row in the block.
// CHECK:                 %[[AT:\w+]] = arith.muli %[[TILE]], %{{\w+}} : index
// CHECK-NEXT:            %[[START:\w+]] = arith.addi %[[AT]], %[[OFFSET]] : index
// CHECK-NEXT:            %{{\w+}} = arith.addi %[[START]], %[[R]] : index
// CHECK:           loop.if %[[IS2]] {
// CHECK:                 loop.for %{{\w+}} = 0 to 2 step 1 {
// CHECK:           loop.if %[[IS3]] {
// CHECK:                 loop.for %{{\w+}} = 0 to 3 step 1 {
// CHECK-NOT:       loop.if
// CHECK:         func.return

// UNGUARDED-NOT: arith.cmpi slt

func.func @rows_0(%a: tensor<?x16xf32, #graph.dims<"n">>, %b: tensor<16x32xf32>) -> tensor<?x32xf32, #graph.dims<"n">> attributes {te.kernel} {
  %c = te.compute (%i, %j) in ["n", 32] sum (%k) in [16] {schedule = [#te.split<"i0", 4>, #te.reorder<["i0.o", "r0", "i0.i", "i1"]>, #te.unroll<"i0.i">]} : tensor<?x32xf32, #graph.dims<"n">> {
    %x = te.read %a[%i, %k] : tensor<?x16xf32, #graph.dims<"n">>
    %y = te.read %b[%k, %j] : tensor<16x32xf32>
    %p = arith.mulf %x, %y : f32
    te.yield %p : f32
  }
  func.return %c : tensor<?x32xf32, #graph.dims<"n">>
}
