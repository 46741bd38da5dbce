// A size the entry sets as it runs (`loop.set_size`, a count found by a graph.flat_nonzero):
// it is stored into its slot of the sizes array (the run time reads it back for the
// outputs' shapes), and read from there where it is used, after the set. A buffer of that
// size is planned for its bound (an expression of the inputs' sizes only, computed in the
// entry block), and `minitvm.entry` lists the set sizes with their bounds. A value beyond
// its bound stops the run there: the entry returns (the run time then raises a capacity, or
// reports a failed check).
// RUN: minitvm-opt %s -p loop-plan-memory | filecheck %s --check-prefix=PLAN
// RUN: minitvm-opt %s -p loop-plan-memory,convert-loop-to-llvm | filecheck %s

// PLAN:         %t = loop.alloc {offset = 0 : i64} : memref<?xi64, #graph.dims<"nz">>
// PLAN:         %u = loop.alloc {offset = "64*floordiv(24*b + 63, 64)"} : memref<?xf32, #graph.dims<"nz">>

// CHECK: builtin.module attributes {minitvm.entry = {{{.*}}symbols = ["b", "nz"], arena_size_expr = "64*floordiv(12*b + 63, 64) + 64*floordiv(24*b + 63, 64)", set_sizes = {nz = "3*b"}}} {
// CHECK: llvm.func @main(%{{\w+}}: !llvm.ptr, %{{\w+}}: !llvm.ptr, %[[ARENA:\w+]]: !llvm.ptr, %[[SIZES:\w+]]: !llvm.ptr) {
// CHECK:         %[[B:\w+]] = llvm.load %[[SIZES]] {alignment = 8 : i64} : !llvm.ptr -> i64
// CHECK-NEXT:    %[[SLOT:\w+]] = llvm.getelementptr inbounds %[[SIZES]][1] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-NOT:     llvm.load %[[SLOT]]
// CHECK:         %{{\w+}} = llvm.mul %{{\w+}}, %[[B]] : i64
// CHECK:         llvm.store %[[COUNT:\w+]], %[[SLOT]] {alignment = 8 : i64} : i64, !llvm.ptr
// CHECK-NEXT:    %[[OVER:\w+]] = llvm.icmp "sgt" %[[COUNT]], %{{\w+}} : i64
// CHECK-NEXT:    llvm.cond_br %[[OVER]], ^[[STOP:\w+]], ^[[GO:\w+]]
// CHECK-NEXT:  ^[[STOP]]:
// CHECK-NEXT:    llvm.return
// CHECK-NEXT:  ^[[GO]]:
// CHECK-NEXT:    %[[NZ:\w+]] = llvm.load %[[SLOT]] {alignment = 8 : i64} : !llvm.ptr -> i64
// CHECK-NEXT:    llvm.call @k(%{{\w+}}, %{{\w+}}, %[[NZ]]) : (!llvm.ptr, !llvm.ptr, i64) -> ()
func.func private @k(memref<?xi64, #graph.dims<"nz">>, memref<?xf32, #graph.dims<"nz">>, index) -> () attributes {loop.kernel, loop.symbols = ["nz"]}
func.func @main(%m: memref<?x3xi1, #graph.dims<"b">>) attributes {loop.symbols = ["b", "nz"]} {
  %t = loop.alloc : memref<?xi64, #graph.dims<"nz">>
  %zero = arith.constant 0 : index
  %b = loop.size "b"
  %count = loop.for %i = 0 to %b (at most 64) step 1 iter_args(%c = %zero) -> (index) {
    %v = loop.load %m[%i, %zero] : memref<?x3xi1, #graph.dims<"b">> -> i1
    %one = arith.constant 1 : index
    %step = arith.select %v, %one, %zero : index
    %next = arith.addi %c, %step : index
    loop.yield %next : index
  }
  loop.set_size "nz" = %count at most "3*b"
  %u = loop.alloc : memref<?xf32, #graph.dims<"nz">>
  %nz = loop.size "nz"
  func.call @k(%t, %u, %nz) : (memref<?xi64, #graph.dims<"nz">>, memref<?xf32, #graph.dims<"nz">>, index) -> ()
  func.return
}
