// loop.threads, the thread count of the run, lowers to a call of the runtime's
// `__minitvm_threads` (declared here; the JIT links in its definition, an exported library
// answers it from the calling model's pool), and round-trips through the textual IR.
// RUN: minitvm-opt %s | filecheck %s --check-prefix=ROUND
// RUN: minitvm-opt %s -p convert-loop-to-llvm | filecheck %s

// ROUND:      %[[T:\w+]] = loop.threads
// ROUND-NEXT: %{{\w+}} = arith.cmpi sge, %{{\w+}}, %[[T]] : index

// CHECK:      llvm.func @k(%{{\d+}}: !llvm.ptr {llvm.noalias}, %[[N:\d+]]: i64) {
// CHECK:        %[[T:\d+]] = llvm.call @__minitvm_threads() : () -> i64
// CHECK-NEXT:   %{{\d+}} = llvm.icmp "sge" %[[N]], %[[T]] : i64
// CHECK:      llvm.func @__minitvm_threads() -> i64
func.func @k(%a: memref<?xf32, #graph.dims<"n">>, %n: index) attributes {loop.kernel, loop.symbols = ["n"]} {
  %size = loop.size "n"
  %t = loop.threads
  %many = arith.cmpi sge, %size, %t : index
  loop.if %many {
    %z = arith.constant 0.0 : f32
    loop.for %i = 0 to %size (at most 64) step 1 {
      loop.store %z, %a[%i] : f32, memref<?xf32, #graph.dims<"n">>
    } {parallel}
  }
  func.return
}
