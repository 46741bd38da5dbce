// convert-te-to-loop writes a graph.flat_nonzero into @main: one pass over the mask in
// row-major order with the count carried through the loops, each position stored at
// result[count] and the count raised by one where the mask is true (no branch), then
// `loop.set_size` gives the count (at most the mask's element count) to the ops after it,
// which take it as a run-time size like an input's. A row is taken a cache line (64 i1) at
// a time, element by element only where the line has one set (trip count 0 otherwise);
// the 8 left after 3 whole lines of the 200, one by one.
// RUN: minitvm-opt %s -p convert-graph-to-te,convert-te-to-loop | filecheck %s
// RUN: minitvm-opt %s -p convert-graph-to-te,convert-te-to-loop | minitvm-opt | filecheck %s

// CHECK-LABEL: func.func @main(%0: memref<?x200xi1, #graph.dims<"b">>, %1: memref<?xf32, #graph.dims<"nz">>) attributes {loop.symbols = ["b", "nz"]} {
// CHECK-NEXT:    %[[POS:\d+]] = loop.alloc : memref<?xi64, #graph.dims<"nz">>
// CHECK-NEXT:    %[[ZERO:\d+]] = arith.constant 0 : index
// CHECK-NEXT:    %[[B:\d+]] = loop.size "b"
// CHECK-NEXT:    %[[COUNT:\d+]] = loop.for %[[I:\d+]] = 0 to %[[B]] (at most {{\d+}}) step 1 iter_args(%[[C0:\d+]] = %[[ZERO]]) -> (index) {
// CHECK:           %[[ROW:\d+]] = arith.addi %{{\d+}}, %[[I]] : index
// CHECK-NEXT:      %[[WIDTH:\d+]] = arith.constant 200 : index
// CHECK-NEXT:      %[[BASE:\d+]] = arith.muli %[[ROW]], %[[WIDTH]] : index
// CHECK:           %[[LINES:\d+]] = loop.for %[[L:\d+]] = 0 to 3 step 1 iter_args(%[[C1:\d+]] = %[[C0]]) -> (index) {
// CHECK-NEXT:        %[[START:\d+]] = arith.muli %[[L]], %{{\d+}} : index
// CHECK-NEXT:        %[[LINE:\d+]] = loop.vload %0[%[[I]], %[[START]]] : memref<?x200xi1, #graph.dims<"b">> -> vector<64xi1>
// CHECK-NEXT:        %[[FALSE:\d+]] = arith.constant false
// CHECK-NEXT:        %[[SOME:\d+]] = loop.vreduce "ori" %[[FALSE]], %[[LINE]] : vector<64xi1> -> i1
// CHECK-NEXT:        %[[TRIP:\d+]] = arith.select %[[SOME]], %{{\d+}}, %{{\d+}} : index
// CHECK-NEXT:        %[[IN_LINE:\d+]] = loop.for %[[J:\d+]] = 0 to %[[TRIP]] (at most 64) step 1 iter_args(%[[C2:\d+]] = %[[C1]]) -> (index) {
// CHECK-NEXT:          %[[COLUMN:\d+]] = arith.addi %[[START]], %[[J]] : index
// CHECK-NEXT:          %[[TRUE:\d+]] = loop.load %0[%[[I]], %[[COLUMN]]] : memref<?x200xi1, #graph.dims<"b">> -> i1
// CHECK-NEXT:          %[[FLAT:\d+]] = arith.addi %[[BASE]], %[[COLUMN]] : index
// CHECK-NEXT:          %[[AT:\d+]] = arith.index_cast %[[FLAT]] : index to i64
// CHECK-NEXT:          loop.store %[[AT]], %[[POS]][%[[C2]]] : i64, memref<?xi64, #graph.dims<"nz">>
// CHECK:               %[[STEP:\d+]] = arith.select %[[TRUE]], %{{\d+}}, %{{\d+}} : index
// CHECK-NEXT:          %[[NEXT:\d+]] = arith.addi %[[C2]], %[[STEP]] : index
// CHECK-NEXT:          loop.yield %[[NEXT]] : index
// CHECK-NEXT:        }
// CHECK-NEXT:        loop.yield %[[IN_LINE]] : index
// CHECK-NEXT:      }
// CHECK-NEXT:      %[[DONE:\d+]] = arith.muli %{{\d+}}, %{{\d+}} : index
// CHECK-NEXT:      %[[TAIL:\d+]] = loop.for %[[K:\d+]] = 0 to 8 step 1 iter_args(%[[C3:\d+]] = %[[LINES]]) -> (index) {
// CHECK-NEXT:        %[[COLUMN2:\d+]] = arith.addi %[[DONE]], %[[K]] : index
// CHECK-NEXT:        %{{\d+}} = loop.load %0[%[[I]], %[[COLUMN2]]] : memref<?x200xi1, #graph.dims<"b">> -> i1
// CHECK:             loop.yield %{{\d+}} : index
// CHECK-NEXT:      }
// CHECK-NEXT:      loop.yield %[[TAIL]] : index
// CHECK-NEXT:    }
// CHECK-NEXT:    loop.set_size "nz" = %[[COUNT]] at most "200*b"
// CHECK-NEXT:    %[[Y:\d+]] = loop.alloc : memref<?xf32, #graph.dims<"nz">>
// CHECK-NEXT:    %[[NZ:\d+]] = loop.size "nz"
// CHECK-NEXT:    func.call @cast_0(%[[POS]], %[[Y]], %[[NZ]])
func.func @main(%m: tensor<?x200xi1, #graph.dims<"b">>) -> tensor<?xf32, #graph.dims<"nz">> {
  %i = graph.flat_nonzero %m : tensor<?x200xi1, #graph.dims<"b">> -> tensor<?xi64, #graph.dims<"nz">>
  %f = graph.cast %i : tensor<?xi64, #graph.dims<"nz">> to tensor<?xf32, #graph.dims<"nz">>
  %g = graph.relu %f : tensor<?xf32, #graph.dims<"nz">>
  func.return %g : tensor<?xf32, #graph.dims<"nz">>
}
