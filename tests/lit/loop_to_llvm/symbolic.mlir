// convert-loop-to-llvm with symbolic sizes. A kernel's symbols are its trailing i64
// arguments (`loop.symbols`), the entry's come from its fourth argument (the run time's
// sizes, in `loop.symbols` order; the module's `minitvm.entry` lists them). Sizes are
// computed once in the entry block (floordiv rounds toward -inf), a buffer's symbolic
// dims give its strides, a loop to a run-time bound compares with it, and a buffer of
// run-time size is allocated at entry and freed before returning.
// RUN: minitvm-opt %s -p convert-loop-to-llvm | filecheck %s

// CHECK: builtin.module attributes {minitvm.entry = {{{.*}}symbols = ["n"]}} {
// CHECK: llvm.func @k(%{{\d+}}: !llvm.ptr {llvm.noalias}, %[[N:\d+]]: i64) {
// The row stride, floordiv(n + 1, 2), in the entry block:
// CHECK:         %[[N1:\d+]] = llvm.add %[[N]], %{{\d+}} : i64
// CHECK:         %[[Q:\d+]] = llvm.sdiv %[[N1]], %[[TWO:\d+]] : i64
// CHECK:         %[[R:\d+]] = llvm.srem %[[N1]], %[[TWO]] : i64
// CHECK:         %[[STRIDE:\d+]] = llvm.sub %[[Q]], %{{\d+}} : i64
// CHECK:       ^loop(%[[I:\w+]]: i64):
// CHECK-NEXT:    %{{\d+}} = llvm.icmp "slt" %[[I]], %[[N]] : i64
// CHECK:       ^body:
// CHECK-NEXT:    %[[ROW:\d+]] = llvm.mul %[[I]], %[[STRIDE]] overflow<nsw> : i64
// CHECK-NEXT:    %[[AT:\d+]] = llvm.add %[[ROW]], %[[I]] overflow<nsw> : i64
// CHECK-NEXT:    %{{\d+}} = llvm.getelementptr inbounds %{{\d+}}[%[[AT]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK: llvm.func @main(%{{\d+}}: !llvm.ptr, %{{\d+}}: !llvm.ptr, %{{\d+}}: !llvm.ptr, %[[SIZES:\d+]]: !llvm.ptr) {
// CHECK:         %[[NV:\d+]] = llvm.load %[[SIZES]] {alignment = 8 : i64} : !llvm.ptr -> i64
// CHECK:         %[[BYTES:\d+]] = llvm.mul %{{\d+}}, %[[NV]] : i64
// CHECK:         %[[BUFFER:\d+]] = llvm.call @aligned_alloc(%{{\d+}}, %{{\d+}}) : (i64, i64) -> !llvm.ptr
// CHECK:         llvm.call @k(%{{\d+}}, %[[NV]]) : (!llvm.ptr, i64) -> ()
// CHECK-NEXT:    llvm.call @free(%[[BUFFER]]) : (!llvm.ptr) -> ()
// CHECK-NEXT:    llvm.return
func.func @k(%a: memref<?x?xf32, #graph.dims<"n", "floordiv(n + 1, 2)">>, %n: index) attributes {loop.kernel, loop.symbols = ["n"]} {
  %z = arith.constant 0.0 : f32
  %rows = loop.size "n"
  loop.for %i = 0 to %rows (at most 2147483647) step 1 {
    loop.store %z, %a[%i, %i] : f32, memref<?x?xf32, #graph.dims<"n", "floordiv(n + 1, 2)">>
  }
  func.return
}
func.func @main(%a: memref<?x?xf32, #graph.dims<"n", "floordiv(n + 1, 2)">>) attributes {loop.symbols = ["n"]} {
  %t = loop.alloc : memref<?xf32, #graph.dims<"2*n">>
  %n = loop.size "n"
  func.call @k(%a, %n) : (memref<?x?xf32, #graph.dims<"n", "floordiv(n + 1, 2)">>, index) -> ()
  func.return
}
