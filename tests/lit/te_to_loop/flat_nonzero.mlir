// convert-te-to-loop writes a graph.flat_nonzero into @main: one pass over the mask in
// row-major order with the count carried through the loops, each position stored at
// result[count] and the count raised by one where the mask is true (no branch), then
// `loop.set_size` gives the count (at most the mask's element count) to the ops after it,
// which take it as a run-time size like an input's.
// RUN: minitvm-opt %s -p convert-graph-to-te,convert-te-to-loop | filecheck %s
// RUN: minitvm-opt %s -p convert-graph-to-te,convert-te-to-loop | minitvm-opt | filecheck %s

// CHECK-LABEL: func.func @main(%0: memref<?x3xi1, #graph.dims<"b">>, %1: memref<?xf32, #graph.dims<"nz">>) attributes {loop.symbols = ["b", "nz"]} {
// CHECK-NEXT:    %[[POS:\d+]] = loop.alloc : memref<?xi64, #graph.dims<"nz">>
// CHECK-NEXT:    %[[ZERO:\d+]] = arith.constant 0 : index
// CHECK-NEXT:    %[[ONE:\d+]] = arith.constant 1 : index
// CHECK-NEXT:    %[[B:\d+]] = loop.size "b"
// CHECK-NEXT:    %[[COUNT:\d+]] = loop.for %[[I:\d+]] = 0 to %[[B]] (at most {{\d+}}) step 1 iter_args(%[[C0:\d+]] = %[[ZERO]]) -> (index) {
// CHECK:           %[[ROW:\d+]] = arith.addi %{{\d+}}, %[[I]] : index
// CHECK-NEXT:      %[[INNER:\d+]] = loop.for %[[J:\d+]] = 0 to 3 step 1 iter_args(%[[C1:\d+]] = %[[C0]]) -> (index) {
// CHECK:             %[[FLAT:\d+]] = arith.addi %{{\d+}}, %[[J]] : index
// CHECK-NEXT:        %[[TRUE:\d+]] = loop.load %0[%[[I]], %[[J]]] : memref<?x3xi1, #graph.dims<"b">> -> i1
// CHECK-NEXT:        %[[AT:\d+]] = arith.index_cast %[[FLAT]] : index to i64
// CHECK-NEXT:        loop.store %[[AT]], %[[POS]][%[[C1]]] : i64, memref<?xi64, #graph.dims<"nz">>
// CHECK-NEXT:        %[[STEP:\d+]] = arith.select %[[TRUE]], %[[ONE]], %[[ZERO]] : index
// CHECK-NEXT:        %[[NEXT:\d+]] = arith.addi %[[C1]], %[[STEP]] : index
// CHECK-NEXT:        loop.yield %[[NEXT]] : index
// CHECK-NEXT:      }
// CHECK-NEXT:      loop.yield %[[INNER]] : index
// CHECK-NEXT:    }
// CHECK-NEXT:    loop.set_size "nz" = %[[COUNT]] at most "3*b"
// CHECK-NEXT:    %[[Y:\d+]] = loop.alloc : memref<?xf32, #graph.dims<"nz">>
// CHECK-NEXT:    %[[NZ:\d+]] = loop.size "nz"
// CHECK-NEXT:    func.call @cast_0(%[[POS]], %[[Y]], %[[NZ]])
func.func @main(%m: tensor<?x3xi1, #graph.dims<"b">>) -> tensor<?xf32, #graph.dims<"nz">> {
  %i = graph.flat_nonzero %m : tensor<?x3xi1, #graph.dims<"b">> -> tensor<?xi64, #graph.dims<"nz">>
  %f = graph.cast %i : tensor<?xi64, #graph.dims<"nz">> to tensor<?xf32, #graph.dims<"nz">>
  %g = graph.relu %f : tensor<?xf32, #graph.dims<"nz">>
  func.return %g : tensor<?xf32, #graph.dims<"nz">>
}
