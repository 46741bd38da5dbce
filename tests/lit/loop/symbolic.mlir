// The loop dialect with sizes known at run time: a loop to a run-time bound (and the bound
// on it passes may use), `loop.size`, and buffers whose `?` dims carry their expressions.
// RUN: minitvm-opt %s | filecheck %s
// RUN: minitvm-opt %s | minitvm-opt | filecheck %s
// RUN: minitvm-opt %s --print-op-generic | minitvm-opt | filecheck %s

// CHECK-LABEL: func.func @k(%a: memref<?x4xf32, #graph.dims<"n">>, %n: index) attributes {loop.symbols = ["n"]} {
// CHECK-NEXT:    %z = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %rows = loop.size "n"
// CHECK-NEXT:    %s = loop.for %i = 0 to %rows (at most 64) step 1 iter_args(%acc = %z) -> (f32) {
// CHECK-NEXT:      %v = loop.load %a[%i, %i] : memref<?x4xf32, #graph.dims<"n">> -> f32
// CHECK-NEXT:      %t = arith.addf %acc, %v : f32
// CHECK-NEXT:      loop.yield %t : f32
// CHECK-NEXT:    }
func.func @k(%a: memref<?x4xf32, #graph.dims<"n">>, %n: index) attributes {loop.symbols = ["n"]} {
  %z = arith.constant 0.0 : f32
  %rows = loop.size "n"
  %s = loop.for %i = 0 to %rows (at most 64) step 1 iter_args(%acc = %z) -> (f32) {
    %v = loop.load %a[%i, %i] : memref<?x4xf32, #graph.dims<"n">> -> f32
    %t = arith.addf %acc, %v : f32
    loop.yield %t : f32
  }
  func.return
}

// `loop.set_size`: the entry function gives a size found as it runs its value, with the
// bound buffers of that size are planned for.
// CHECK-LABEL: func.func @main(%m: memref<?xi1, #graph.dims<"b">>) attributes {loop.symbols = ["b", "nz"]} {
// CHECK-NEXT:    %count = arith.constant 0 : index
// CHECK-NEXT:    loop.set_size "nz" = %count at most "b"
func.func @main(%m: memref<?xi1, #graph.dims<"b">>) attributes {loop.symbols = ["b", "nz"]} {
  %count = arith.constant 0 : index
  loop.set_size "nz" = %count at most "b"
  func.return
}

// A check: a size that is 1 where it fails, at most 0, with the message the run time reports.
// CHECK-LABEL: func.func @checked(%ok: i1) attributes {loop.symbols = ["r_check"]} {
// CHECK:         loop.set_size "r_check" = %failed at most "0" {message = "node 'r' (Reshape): the shape does not fit"}
func.func @checked(%ok: i1) attributes {loop.symbols = ["r_check"]} {
  %zero = arith.constant 0 : index
  %one = arith.constant 1 : index
  %failed = arith.select %ok, %zero, %one : index
  loop.set_size "r_check" = %failed at most "0" {message = "node 'r' (Reshape): the shape does not fit"}
  func.return
}
