// convert-te-to-loop on a Reshape to a shape read from tensors (the frontend's: a
// graph.iota per dim, their `group` shared, then graph.reshape_to_sizes of the flat input).
// Each iota's loop.set_size carries the group (the run time raises the capacities of one
// shape's dims together, to one run's sizes), bounded by its own capacity, all four symbols
// of the entry. The reshape is a kernel call: the input, the size vectors (whose values it
// does not read), the result, then the sizes themselves (`loop.size`), which its nest runs
// over and the row-major position i0 * y_len1 + i1 reads.
// RUN: minitvm-opt %s -p convert-graph-to-te,convert-te-to-loop | filecheck %s
// RUN: minitvm-opt %s -p convert-graph-to-te,convert-te-to-loop | minitvm-opt | filecheck %s

// CHECK-LABEL: func.func @reshape_to_sizes_0(%0: memref<24xf32>, %1: memref<?xi64, #graph.dims<"y_len0">>, %2: memref<?xi64, #graph.dims<"y_len1">>, %3: memref<?x?xf32, #graph.dims<"y_len0", "y_len1">>, %y_len0: index, %y_len1: index) attributes {loop.kernel, loop.symbols = ["y_len0", "y_len1"]} {
// CHECK-NEXT:    %[[ROWS:\d+]] = loop.size "y_len0"
// CHECK-NEXT:    %[[COLS:\d+]] = loop.size "y_len1"
// CHECK-NEXT:    loop.for %[[I:\w+]] = 0 to %[[ROWS]] (at most {{\d+}}) step 1 {
// CHECK-NEXT:      loop.for %[[J:\w+]] = 0 to %[[COLS]] (at most {{\d+}}) step 1 {
// CHECK-NEXT:        %[[IN:\d+]] = arith.muli %[[I]], %[[COLS]] : index
// CHECK-NEXT:        %[[LIN:\d+]] = arith.addi %[[IN]], %[[J]] : index
// CHECK-NEXT:        %[[E:\d+]] = loop.load %0[%[[LIN]]] : memref<24xf32> -> f32
// CHECK-NEXT:        loop.store %[[E]], %3[%[[I]], %[[J]]] : f32, memref<?x?xf32, #graph.dims<"y_len0", "y_len1">>
// CHECK-NEXT:      }
// CHECK-NEXT:    } {parallel}

// CHECK-LABEL: func.func @main(%0: memref<24xf32>, %1: memref<i64>, %2: memref<i64>, %3: memref<?x?xf32, #graph.dims<"y_len0", "y_len1">>) attributes {loop.symbols = ["y_len0", "y_len0_cap", "y_len1", "y_len1_cap"]} {
// CHECK-NEXT:    %[[P0:\d+]] = loop.alloc : memref<?xi64, #graph.dims<"y_len0">>
// CHECK:         %[[N0:\d+]] = arith.index_cast %{{\d+}} : i64 to index
// CHECK-NEXT:    loop.set_size "y_len0" = %[[N0]] at most "y_len0_cap" {group = "y_dims"}{{$}}
// CHECK:         %[[P1:\d+]] = loop.alloc : memref<?xi64, #graph.dims<"y_len1">>
// CHECK:         %[[N1:\d+]] = arith.index_cast %{{\d+}} : i64 to index
// CHECK-NEXT:    loop.set_size "y_len1" = %[[N1]] at most "y_len1_cap" {group = "y_dims"}{{$}}
// CHECK:         %[[S0:\d+]] = loop.size "y_len0"
// CHECK-NEXT:    %[[S1:\d+]] = loop.size "y_len1"
// CHECK-NEXT:    func.call @reshape_to_sizes_0(%0, %[[P0]], %[[P1]], %3, %[[S0]], %[[S1]]) : (memref<24xf32>, memref<?xi64, #graph.dims<"y_len0">>, memref<?xi64, #graph.dims<"y_len1">>, memref<?x?xf32, #graph.dims<"y_len0", "y_len1">>, index, index) -> ()
// CHECK-NEXT:    func.return
func.func @main(%x: tensor<24xf32>, %n0: tensor<i64>, %n1: tensor<i64>) -> tensor<?x?xf32, #graph.dims<"y_len0", "y_len1">> {
  %i0 = graph.iota %n0 {group = "y_dims"} : tensor<i64> -> tensor<?xi64, #graph.dims<"y_len0">>
  %i1 = graph.iota %n1 {group = "y_dims"} : tensor<i64> -> tensor<?xi64, #graph.dims<"y_len1">>
  %y = graph.reshape_to_sizes %x to %i0, %i1 : tensor<24xf32>, tensor<?xi64, #graph.dims<"y_len0">>, tensor<?xi64, #graph.dims<"y_len1">> -> tensor<?x?xf32, #graph.dims<"y_len0", "y_len1">>
  func.return %y : tensor<?x?xf32, #graph.dims<"y_len0", "y_len1">>
}
