// convert-te-to-loop writes a graph.invert_permutation into @main as one loop that stores
// each position at the place the permutation gives it: out[perm[i]] = i.
// RUN: minitvm-opt %s -p convert-graph-to-te,convert-te-to-loop | filecheck %s
// RUN: minitvm-opt %s -p convert-graph-to-te,convert-te-to-loop | minitvm-opt | filecheck %s

// CHECK-LABEL: func.func @main(%0: memref<?xi64, #graph.dims<"n">>, %1: memref<?xi64, #graph.dims<"n">>) attributes {loop.symbols = ["n"]} {
// CHECK-NEXT:    %[[N:\d+]] = loop.size "n"
// CHECK-NEXT:    loop.for %[[I:\d+]] = 0 to %[[N]] (at most {{\d+}}) step 1 {
// CHECK-NEXT:      %[[P:\d+]] = loop.load %0[%[[I]]] : memref<?xi64, #graph.dims<"n">> -> i64
// CHECK-NEXT:      %[[TARGET:\d+]] = arith.index_cast %[[P]] : i64 to index
// CHECK-NEXT:      %[[VALUE:\d+]] = arith.index_cast %[[I]] : index to i64
// CHECK-NEXT:      loop.store %[[VALUE]], %1[%[[TARGET]]] : i64, memref<?xi64, #graph.dims<"n">>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @main(%p: tensor<?xi64, #graph.dims<"n">>) -> tensor<?xi64, #graph.dims<"n">> {
  %i = graph.invert_permutation %p : tensor<?xi64, #graph.dims<"n">> -> tensor<?xi64, #graph.dims<"n">>
  func.return %i : tensor<?xi64, #graph.dims<"n">>
}
