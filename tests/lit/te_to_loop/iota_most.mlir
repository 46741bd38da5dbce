// convert-te-to-loop writes a graph.iota that has a bound (`most`: a TopK's k fed at run time
// is at most the row's length) like iota.mlir's, but clamps the count (at least 0) to the
// bound with an unsigned min before setting the size, and sets it at most the bound, not at
// most a capacity `<size>_cap`: no capacity is planned for it, so none is one of the entry's
// symbols. A bound that is a number is an index constant; one in terms of other sizes
// (here the row's length `n`) is read with loop.size.
// RUN: minitvm-opt %s -p convert-graph-to-te,convert-te-to-loop | filecheck %s
// RUN: minitvm-opt %s -p convert-graph-to-te,convert-te-to-loop | minitvm-opt | filecheck %s

// CHECK-LABEL: func.func @main(%0: memref<?xf32, #graph.dims<"n">>, %1: memref<i64>, %2: memref<?xf32, #graph.dims<"v_count">>, %3: memref<?xf32, #graph.dims<"k_count">>) attributes {loop.symbols = ["k_count", "n", "v_count"]} {
// CHECK-NEXT:    %[[V:\d+]] = loop.alloc : memref<?xi64, #graph.dims<"v_count">>
// CHECK-NEXT:    %[[N:\d+]] = loop.load %1[] : memref<i64> -> i64
// CHECK-NEXT:    %[[Z:\d+]] = arith.constant 0 : i64
// CHECK-NEXT:    %[[AT_LEAST:\d+]] = arith.maxsi %[[N]], %[[Z]] : i64
// CHECK-NEXT:    %[[COUNT:\d+]] = arith.index_cast %[[AT_LEAST]] : i64 to index
// CHECK-NEXT:    %[[MOST:\d+]] = arith.constant 50257 : index
// CHECK-NEXT:    %[[CLAMPED:\d+]] = arith.minui %[[COUNT]], %[[MOST]] : index
// CHECK-NEXT:    loop.set_size "v_count" = %[[CLAMPED]] at most "50257"{{$}}
// CHECK-NEXT:    %[[LEN:\d+]] = loop.size "v_count"
// CHECK-NEXT:    loop.for %[[I:\d+]] = 0 to %[[LEN]] (at most {{\d+}}) step 1 {
// CHECK-NEXT:      %[[AT:\d+]] = arith.index_cast %[[I]] : index to i64
// CHECK-NEXT:      loop.store %[[AT]], %[[V]][%[[I]]] : i64, memref<?xi64, #graph.dims<"v_count">>
// CHECK-NEXT:    }
// CHECK:         %[[K:\d+]] = loop.alloc : memref<?xi64, #graph.dims<"k_count">>
// CHECK-NEXT:    %[[N2:\d+]] = loop.load %1[] : memref<i64> -> i64
// CHECK-NEXT:    %[[Z2:\d+]] = arith.constant 0 : i64
// CHECK-NEXT:    %[[AT_LEAST2:\d+]] = arith.maxsi %[[N2]], %[[Z2]] : i64
// CHECK-NEXT:    %[[COUNT2:\d+]] = arith.index_cast %[[AT_LEAST2]] : i64 to index
// CHECK-NEXT:    %[[ROW:\d+]] = loop.size "n"
// CHECK-NEXT:    %[[CLAMPED2:\d+]] = arith.minui %[[COUNT2]], %[[ROW]] : index
// CHECK-NEXT:    loop.set_size "k_count" = %[[CLAMPED2]] at most "n"{{$}}
// CHECK-NEXT:    %[[LEN2:\d+]] = loop.size "k_count"
// CHECK-NEXT:    loop.for %[[J:\d+]] = 0 to %[[LEN2]] (at most {{\d+}}) step 1 {
// CHECK-NEXT:      %[[AT2:\d+]] = arith.index_cast %[[J]] : index to i64
// CHECK-NEXT:      loop.store %[[AT2]], %[[K]][%[[J]]] : i64, memref<?xi64, #graph.dims<"k_count">>
// CHECK-NEXT:    }
// CHECK-NOT:     _cap
func.func @main(%x: tensor<?xf32, #graph.dims<"n">>, %kk: tensor<i64>) -> (tensor<?xf32, #graph.dims<"v_count">>, tensor<?xf32, #graph.dims<"k_count">>) {
  %v = graph.iota %kk {most = "50257"} : tensor<i64> -> tensor<?xi64, #graph.dims<"v_count">>
  %fv = graph.cast %v : tensor<?xi64, #graph.dims<"v_count">> to tensor<?xf32, #graph.dims<"v_count">>
  %k = graph.iota %kk {most = "n"} : tensor<i64> -> tensor<?xi64, #graph.dims<"k_count">>
  %fk = graph.cast %k : tensor<?xi64, #graph.dims<"k_count">> to tensor<?xf32, #graph.dims<"k_count">>
  func.return %fv, %fk : tensor<?xf32, #graph.dims<"v_count">>, tensor<?xf32, #graph.dims<"k_count">>
}
