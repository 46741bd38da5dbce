// convert-te-to-loop writes a graph.check and a graph.iota into @main. The check is a size
// that is 1 where it fails, at most 0, carrying its message (the run stops there). The
// iota's count (at least 0) sets its size first, at most its capacity `len_cap` (a size the
// run time supplies and raises: a larger count stops the run before anything is written),
// then one loop stores the positions. The capacity is one of the entry's symbols. An iota of
// no group sets its size with none (reshape_to_sizes.mlir has a grouped one).
// RUN: minitvm-opt %s -p convert-graph-to-te,convert-te-to-loop | filecheck %s
// RUN: minitvm-opt %s -p convert-graph-to-te,convert-te-to-loop | minitvm-opt | filecheck %s

// CHECK-LABEL: func.func @main(%0: memref<i64>, %1: memref<?xf32, #graph.dims<"len">>) attributes {loop.symbols = ["len", "len_cap", "r_check"]} {
// CHECK:         func.call @greater_equal_0(%0, %{{\d+}}, %[[OK:\d+]])
// CHECK-NEXT:    %[[HOLDS:\d+]] = loop.load %[[OK]][] : memref<i1> -> i1
// CHECK-NEXT:    %[[ZERO:\d+]] = arith.constant 0 : index
// CHECK-NEXT:    %[[ONE:\d+]] = arith.constant 1 : index
// CHECK-NEXT:    %[[FAILED:\d+]] = arith.select %[[HOLDS]], %[[ZERO]], %[[ONE]] : index
// CHECK-NEXT:    loop.set_size "r_check" = %[[FAILED]] at most "0" {message = "node 'r' (Range): the limit is negative"}
// CHECK-NEXT:    %[[POS:\d+]] = loop.alloc : memref<?xi64, #graph.dims<"len">>
// CHECK-NEXT:    %[[N:\d+]] = loop.load %0[] : memref<i64> -> i64
// CHECK-NEXT:    %[[Z:\d+]] = arith.constant 0 : i64
// CHECK-NEXT:    %[[CLAMPED:\d+]] = arith.maxsi %[[N]], %[[Z]] : i64
// CHECK-NEXT:    %[[COUNT:\d+]] = arith.index_cast %[[CLAMPED]] : i64 to index
// CHECK-NEXT:    loop.set_size "len" = %[[COUNT]] at most "len_cap"{{$}}
// CHECK-NEXT:    %[[LEN:\d+]] = loop.size "len"
// CHECK-NEXT:    loop.for %[[I:\d+]] = 0 to %[[LEN]] (at most {{\d+}}) step 1 {
// CHECK-NEXT:      %[[AT:\d+]] = arith.index_cast %[[I]] : index to i64
// CHECK-NEXT:      loop.store %[[AT]], %[[POS]][%[[I]]] : i64, memref<?xi64, #graph.dims<"len">>
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[L:\d+]] = loop.size "len"
// CHECK-NEXT:    func.call @cast_1(%[[POS]], %1, %[[L]])
func.func @main(%n: tensor<i64>) -> tensor<?xf32, #graph.dims<"len">> {
  %zero = graph.constant dense<0> : tensor<i64>
  %ok = graph.greater_equal %n, %zero : (tensor<i64>, tensor<i64>) -> tensor<i1>
  graph.check %ok {check = "r_check", message = "node 'r' (Range): the limit is negative"} : tensor<i1>
  %i = graph.iota %n : tensor<i64> -> tensor<?xi64, #graph.dims<"len">>
  %f = graph.cast %i : tensor<?xi64, #graph.dims<"len">> to tensor<?xf32, #graph.dims<"len">>
  func.return %f : tensor<?xf32, #graph.dims<"len">>
}
